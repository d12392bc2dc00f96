// npcompile-viewer: a desktop view of an npcompile session file that follows it as it grows.
// `--screenshot out.png` renders offscreen once and exits (tests, docs, CI under xvfb-run).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <memory>
#include <stdexcept>
#include <thread>

#include "gl_window.hpp"
#include "npc/prof/attach_client.hpp"
#include "npc/prof/attach_file.hpp"
#include "npc/viewer/png_file.hpp"
#include "npc/viewer/viewer_model.hpp"
#include "npc/viewer/viewer_options.hpp"
#include "offscreen_target.hpp"
#include "panels.hpp"
#include "theme.hpp"

namespace {
using namespace npc::viewer;

// Frames before the picture is taken: tables and wrapped text settle their sizes over the
// first frames.
constexpr int kSettleFrames = 4;

// Attached (--wait-events): until the live session has that many events, or the timeout.
void wait_for_events(const ViewerOptions& o, ViewerModel& model) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  while (std::chrono::steady_clock::now() < until) {
    model.refresh();
    if (model.view() && model.view()->events >= static_cast<std::size_t>(o.wait_events))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::fprintf(stderr, "npcompile-viewer: %d events not reached in %d s (%s)\n", o.wait_events,
               o.timeout_s, model.attach_status().c_str());
}

// Renders offscreen into o.screenshot: `draw` lays out one frame (the first few settle the
// tables' sizes); with --frames, the median layout time of N frames is printed.
template <class Draw> void render_png(const ViewerOptions& o, GlWindow& window, Draw draw) {
  OffscreenTarget target(o.width, o.height);
  const ImVec2 size{static_cast<float>(o.width), static_cast<float>(o.height)};
  std::vector<double> layout_ms;
  for (int i = 0; i < std::max(kSettleFrames, o.frames); ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    window.new_frame(size);
    draw();
    layout_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    target.bind();
    window.render(o.width, o.height, false);
  }
  if (o.frames > 0) {
    std::sort(layout_ms.begin(), layout_ms.end());
    std::printf("npcompile-viewer: %zu frames, median layout %.2f ms a frame\n", layout_ms.size(),
                layout_ms[layout_ms.size() / 2]);
  }
  write_png(o.screenshot, o.width, o.height, target.read_rgba());
}

int screenshot(const ViewerOptions& o, ViewerModel& model) {
  GlWindow window(o.width, o.height, false, "npcompile-viewer");
  const Theme theme = Theme::install();
  ViewerState state;
  model.refresh();
  if (model.attached())
    wait_for_events(o, model);
  render_png(o, window, [&] { draw_viewer(model, state, theme); });
  std::printf("npcompile-viewer: wrote %s (%dx%d)%s\n", o.screenshot.c_str(), o.width, o.height,
              model.view() ? "" : ", without a session");
  if (model.attached())
    std::printf("npcompile-viewer: attached (%s), %zu events\n", model.attach_status().c_str(),
                model.view() ? model.view()->events : std::size_t{0});
  if (!model.error().empty())
    std::fprintf(stderr, "npcompile-viewer: %s\n", model.error().c_str());
  return model.view() ? 0 : 1;
}

// --compare: two session files, loaded once (they are finished sessions), and what changed.
int compare(const ViewerOptions& o) {
  const SessionView before = SessionView::load(o.compare);
  const SessionView after = SessionView::load(o.path);
  const SessionComparison c = SessionComparison::of(before.report, after.report);
  GlWindow window(o.width, o.height, o.screenshot.empty(), "npcompile-viewer: compare");
  const Theme theme = Theme::install();
  if (!o.screenshot.empty()) {
    render_png(o, window, [&] { draw_comparison(before, after, c, theme); });
    std::printf("npcompile-viewer: wrote %s (%dx%d), %zu functions and %zu breaks compared\n",
                o.screenshot.c_str(), o.width, o.height, c.functions.size(), c.breaks.size());
    return 0;
  }
  while (!window.should_close()) {
    window.new_frame();
    draw_comparison(before, after, c, theme);
    int w = 0, h = 0;
    window.framebuffer_size(w, h);
    window.render(w, h, true);
    window.wait(0.25);
  }
  return 0;
}

int interactive(const ViewerOptions& o, ViewerModel& model) {
  GlWindow window(o.width, o.height, true, "npcompile-viewer");
  const Theme theme = Theme::install();
  ViewerState state;
  while (!window.should_close()) {
    model.refresh();
    window.new_frame();
    draw_viewer(model, state, theme);
    int w = 0, h = 0;
    window.framebuffer_size(w, h);
    window.render(w, h, true);
    window.wait(0.25); // reload checks four times a second while idle
  }
  return 0;
}
} // namespace

int main(int argc, char** argv) {
  ViewerOptions opts;
  try {
    opts = ViewerOptions::parse(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "npcompile-viewer: %s\n%s", e.what(), ViewerOptions::usage().c_str());
    return 2;
  }
  if (opts.help) {
    std::fputs(ViewerOptions::usage().c_str(), stdout);
    return 0;
  }
  try {
    if (!opts.compare.empty())
      return compare(opts);
    std::unique_ptr<ViewerModel> model;
    if (opts.attach) {
      // asked again before each connection: a restarted kernel writes a new port
      auto resolve = [opts] {
        const auto dir = jupyter_runtime_dir();
        auto file = opts.attach_path.empty() ? npc::prof::newest_live_attach(dir) : opts.attach_path;
        if (file.empty())
          throw std::runtime_error("no running npcompile kernel in " + dir.string());
        auto info = npc::prof::read_attach(file);
        if (!opts.host.empty())
          info.host = opts.host;
        if (opts.port != 0)
          info.port = opts.port;
        return info;
      };
      const auto label = opts.attach_path.empty() ? std::filesystem::path("the newest running kernel")
                                                  : opts.attach_path;
      model = std::make_unique<ViewerModel>(std::make_unique<npc::prof::AttachClient>(resolve),
                                            label);
    } else {
      model = std::make_unique<ViewerModel>(opts.path);
    }
    return opts.screenshot.empty() ? interactive(opts, *model) : screenshot(opts, *model);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "npcompile-viewer: %s\n", e.what());
    return 1;
  }
}
