// The session's timeline (prof::Timeline): a row of lanes per thread and beside it, slices
// drawn at their nesting depth, markers as triangles, a time axis on top. Only what is on
// screen is drawn, and slices under a pixel wide are drawn once per pixel column and depth,
// so 100,000 slices stay at frame rate.
#include <algorithm>
#include <cmath>
#include <string>

#include "npc/prof/kernel_palette.hpp"
#include "npc/prof/units.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
namespace {
constexpr float kRow = 18;     // one nesting level
constexpr float kLabelW = 210; // lane names
constexpr float kAxisH = 20;
constexpr float kChrome = 120; // the section's title, the help line, the span and details

ImU32 fill_of(const prof::TimelineSlice& s) {
  if (s.category == "trace")
    return s.args.value("replay", false) ? IM_COL32(0x9e, 0xc5, 0xe8, 0xff)
                                         : IM_COL32(0x4e, 0x79, 0xa7, 0xff);
  if (s.category == "compile")
    return IM_COL32(0xf2, 0x8e, 0x2b, 0xff);
  if (s.category == "compile.phase")
    return IM_COL32(0xff, 0xbe, 0x7d, 0xff);
  if (s.category == "kernel")
    return Theme::colour(prof::KernelPalette::target(s.args.value("target", "cpu")));
  if (s.category == "transfer")
    return IM_COL32(0xb0, 0x7a, 0xa1, 0xff);
  return IM_COL32(0xba, 0xb0, 0xac, 0xff); // eager NumPy runs
}

ImU32 marker_colour(const prof::TimelineMarker& m) {
  if (m.category == "graph_break")
    return Theme::kBad;
  if (m.category == "recompile")
    return Theme::kWarn;
  if (m.category == "fallback")
    return IM_COL32(0x82, 0x0b, 0x1b, 0xff);
  return Theme::kMuted;
}

// "12.5 ms", "480 us": a time on the axis or in a tooltip.
std::string when(double us) { return prof::Units::ms(us / 1000.0); }

std::string args_text(const nlohmann::json& args) {
  std::string out;
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (it.value().is_null() || (it.value().is_string() && it.value().get<std::string>().empty()))
      continue;
    out += it.key() + ": " +
           (it.value().is_string() ? it.value().get<std::string>() : it.value().dump()) + "\n";
  }
  return out;
}

float lane_height(const prof::TimelineLane& l) { return kRow * static_cast<float>(std::max(1, l.depth)) + 6; }

void axis(const prof::TimelineView& view, ImDrawList* dl, ImVec2 o, float w, float bottom) {
  const double step = view.tick_us(w, 90);
  const double first = std::ceil(view.begin_us / step) * step;
  for (double t = first; t < view.end_us; t += step) {
    const float x = o.x + static_cast<float>(view.x_of(t, w));
    dl->AddLine({x, o.y + kAxisH - 4}, {x, bottom}, Theme::kGrid);
    const std::string lbl = t == 0 ? std::string("0") : when(t);
    dl->AddText({x + 3, o.y + 2}, Theme::kMuted, lbl.c_str());
  }
}
} // namespace

float timeline_height(const prof::Timeline& tl) {
  float h = kChrome + kAxisH;
  for (const auto& l : tl.lanes)
    h += lane_height(l);
  return tl.slices.empty() ? 70.0f : h;
}

void draw_timeline(const SessionView& v, ViewerState& s, const Theme& t, float height) {
  const auto& tl = v.timeline;
  if (!section(t, "Timeline", tl.slices.size(), false,
               v.kind == "report" ? "A saved report holds no times: open a session file."
                                  : "Nothing was timed yet."))
    return;
  if (!s.fitted) {
    s.span = prof::TimelineView::fit(tl);
    s.fitted = true;
  }
  text("wheel: zoom at the pointer · drag: pan · shift-drag: a range's statistics · double "
       "click: the whole session",
       Theme::kMuted);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float w = std::max(100.0f, avail_w - kLabelW);
  float lanes_h = 0;
  for (const auto& l : tl.lanes)
    lanes_h += lane_height(l);
  const float canvas_h = std::min(std::max(60.0f, height - kChrome), kAxisH + lanes_h);
  const ImVec2 c0{o.x + kLabelW, o.y};
  auto* dl = ImGui::GetWindowDrawList();

  // interaction on the canvas
  ImGui::SetCursorScreenPos(c0);
  ImGui::InvisibleButton("timeline-canvas", {w, canvas_h});
  const bool hovered = ImGui::IsItemHovered();
  const auto& io = ImGui::GetIO();
  const double mx = io.MousePos.x - c0.x;
  if (hovered && io.MouseWheel != 0)
    s.span.zoom(std::pow(1.25, io.MouseWheel), mx, w, std::max(1.0, tl.end_us * 1.5));
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0)) {
    if (io.KeyShift) { // a range: from where the drag began to the pointer
      s.range_begin = s.span.time_at(io.MouseClickedPos[ImGuiMouseButton_Left].x - c0.x, w);
      s.range_end = s.span.time_at(mx, w);
    } else {
      s.span.pan(io.MouseDelta.x, w);
    }
  }
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Right))
    s.range_begin = s.range_end = 0;
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
    s.span = prof::TimelineView::fit(tl);
  const bool clicked = hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
                       io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < 9;

  dl->PushClipRect(o, {o.x + avail_w, o.y + canvas_h}, true);
  dl->AddRectFilled(c0, {c0.x + w, o.y + canvas_h}, IM_COL32(0xff, 0xff, 0xff, 0xff));
  axis(s.span, dl, c0, w, o.y + canvas_h);
  const auto offsets = tl.lane_offsets();
  float y = o.y + kAxisH;
  std::ptrdiff_t hover_slice = -1, hover_marker = -1;
  for (std::size_t li = 0; li < tl.lanes.size() && y < o.y + canvas_h; ++li) {
    const auto& lane = tl.lanes[li];
    const float lh = lane_height(lane);
    dl->AddLine({o.x, y}, {c0.x + w, y}, Theme::kGrid);
    ImGui::PushFont(lane.thread ? t.bold : t.body);
    dl->PushClipRect({o.x, y}, {c0.x - 6, y + lh}, true); // a long name stops at the canvas
    dl->AddText({o.x + 4, y + 3}, lane.thread ? Theme::kText : Theme::kMuted, lane.name.c_str());
    dl->PopClipRect();
    ImGui::PopFont();
    // slices on screen; under a pixel wide, one per pixel column and depth
    std::vector<float> last_px(static_cast<std::size_t>(std::max(1, lane.depth)), -1e9f);
    for (std::size_t i = offsets[li]; i < offsets[li + 1]; ++i) {
      const auto& sl = tl.slices[i];
      if (sl.start_us > s.span.end_us)
        break;
      if (sl.end_us() < s.span.begin_us)
        continue;
      const float x0 = c0.x + static_cast<float>(s.span.x_of(sl.start_us, w));
      const float x1 = c0.x + static_cast<float>(s.span.x_of(sl.end_us(), w));
      const float top = y + 3 + kRow * static_cast<float>(sl.depth);
      auto& last = last_px[static_cast<std::size_t>(sl.depth)];
      if (x1 - x0 < 1.0f) {
        if (std::floor(x0) == last)
          continue;
        last = std::floor(x0);
      }
      const ImVec2 a{std::max(x0, c0.x), top}, b{std::max(x1, x0 + 1.0f), top + kRow - 2};
      const bool picked = s.slice == static_cast<std::ptrdiff_t>(i);
      dl->AddRectFilled(a, b, fill_of(sl), 2);
      if (picked)
        dl->AddRect(a, b, Theme::kText, 2, 0, 2);
      if (b.x - a.x > 28) {
        dl->PushClipRect(a, b, true);
        dl->AddText({a.x + 3, top + 1}, sl.category == "trace" && !sl.args.value("replay", false)
                                            ? IM_COL32(0xff, 0xff, 0xff, 0xff)
                                            : Theme::kText,
                    sl.name.c_str());
        dl->PopClipRect();
      }
      if (hovered && io.MousePos.x >= a.x && io.MousePos.x <= b.x && io.MousePos.y >= a.y &&
          io.MousePos.y <= b.y)
        hover_slice = static_cast<std::ptrdiff_t>(i);
    }
    for (std::size_t m = 0; m < tl.markers.size(); ++m) {
      const auto& mk = tl.markers[m];
      if (mk.lane != li || mk.ts_us < s.span.begin_us || mk.ts_us > s.span.end_us)
        continue;
      const float x = c0.x + static_cast<float>(s.span.x_of(mk.ts_us, w));
      dl->AddTriangleFilled({x - 5, y + 1}, {x + 5, y + 1}, {x, y + 10}, marker_colour(mk));
      if (hovered && std::abs(io.MousePos.x - x) < 6 && io.MousePos.y >= y &&
          io.MousePos.y <= y + 12)
        hover_marker = static_cast<std::ptrdiff_t>(m);
    }
    y += lh;
  }
  if (s.range_begin != s.range_end) {
    const float a = c0.x + static_cast<float>(s.span.x_of(std::min(s.range_begin, s.range_end), w));
    const float b = c0.x + static_cast<float>(s.span.x_of(std::max(s.range_begin, s.range_end), w));
    dl->AddRectFilled({a, o.y + kAxisH}, {b, o.y + canvas_h}, IM_COL32(0x09, 0x69, 0xda, 0x28));
    dl->AddLine({a, o.y + kAxisH}, {a, o.y + canvas_h}, Theme::kLink);
    dl->AddLine({b, o.y + kAxisH}, {b, o.y + canvas_h}, Theme::kLink);
  }
  dl->PopClipRect();
  dl->AddRect(c0, {c0.x + w, o.y + canvas_h}, Theme::kBorder);

  if (hover_marker >= 0) {
    const auto& mk = tl.markers[static_cast<std::size_t>(hover_marker)];
    ImGui::SetTooltip("%s\nat %s\n%s", mk.name.c_str(), when(mk.ts_us).c_str(),
                      args_text(mk.args).c_str());
  } else if (hover_slice >= 0) {
    const auto& sl = tl.slices[static_cast<std::size_t>(hover_slice)];
    ImGui::SetTooltip("%s (%s)\n%s, from %s\n%s", sl.name.c_str(), sl.category.c_str(),
                      when(sl.dur_us).c_str(), when(sl.start_us).c_str(),
                      args_text(sl.args).c_str());
  }
  if (clicked) {
    s.slice = hover_marker >= 0 ? -1 : hover_slice;
    s.marker = hover_marker;
    if (hover_slice >= 0 && hover_marker < 0) { // a kernel: its source in the kernels panel
      const auto& sl = tl.slices[static_cast<std::size_t>(hover_slice)];
      for (std::size_t k = 0; k < v.report.kernels.size(); ++k)
        if (sl.category == "kernel" && v.report.kernels[k].name == sl.name)
          s.kernel = k;
    }
  }

  // the visible span, and what was clicked
  ImGui::SetCursorScreenPos({o.x, o.y + canvas_h + 4});
  text(when(s.span.begin_us) + " to " + when(s.span.end_us) + " of " + when(tl.end_us) + " · " +
           std::to_string(tl.lanes.size()) + " lanes",
       Theme::kMuted);
  if (s.range_begin != s.range_end) {
    const auto r = tl.stats(s.range_begin, s.range_end);
    std::string line = "selected " + when(r.end_us - r.begin_us) + " (right click clears):";
    for (const auto& [cat, got] : r.slices)
      line += "  " + cat + " " + when(got.second) + " (" + std::to_string(got.first) + ")";
    for (const auto& [cat, n] : r.markers)
      line += "  " + std::to_string(n) + " " + cat;
    wrapped(line, Theme::kLink);
  }
  if (s.slice >= 0 && static_cast<std::size_t>(s.slice) < tl.slices.size()) {
    const auto& sl = tl.slices[static_cast<std::size_t>(s.slice)];
    text(sl.name + " · " + when(sl.dur_us), Theme::kText, t.bold);
    wrapped(args_text(sl.args), Theme::kMuted);
  } else if (s.marker >= 0 && static_cast<std::size_t>(s.marker) < tl.markers.size()) {
    const auto& mk = tl.markers[static_cast<std::size_t>(s.marker)];
    text(mk.name, marker_colour(mk), t.bold);
    const std::string code = mk.args.value("code", "");
    if (!code.empty())
      code_line(t, code);
    wrapped(args_text(mk.args), Theme::kMuted);
  }
}
} // namespace npc::viewer
