#include "npc/viewer/viewer_options.hpp"

#include <cstdlib>
#include <stdexcept>

namespace npc::viewer {
namespace {
int bounded(const std::string& text, const std::string& what, int lo, int hi) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < lo || v > hi)
    throw std::invalid_argument("bad " + what + " '" + text + "' (" + std::to_string(lo) +
                                " to " + std::to_string(hi) + ")");
  return v;
}

int pixels(const std::string& text, const std::string& what) {
  return bounded(text, what + " in pixels", 64, 16384);
}

std::filesystem::path env_path(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::filesystem::path(v) : std::filesystem::path();
}
} // namespace

ViewerOptions ViewerOptions::parse(const std::vector<std::string>& args) {
  ViewerOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size())
        throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "--screenshot") {
      o.screenshot = value();
    } else if (a == "--size") {
      const auto& v = value();
      const auto x = v.find('x');
      if (x == std::string::npos)
        throw std::invalid_argument("--size wants WIDTHxHEIGHT, got '" + v + "'");
      o.width = pixels(v.substr(0, x), "width");
      o.height = pixels(v.substr(x + 1), "height");
    } else if (a == "--frames") {
      o.frames = bounded(value(), "--frames", 1, 100000);
    } else if (a == "--attach") {
      o.attach = true;
      if (i + 1 < args.size() && !args[i + 1].starts_with("-"))
        o.attach_path = args[++i];
    } else if (a == "--compare") {
      if (!o.path.empty())
        throw std::invalid_argument("--compare takes its own two files (got '" +
                                    o.path.string() + "' too)");
      o.compare = value();
      o.path = value();
    } else if (a == "--host") {
      o.host = value();
    } else if (a == "--port") {
      o.port = bounded(value(), "--port", 1, 65535);
    } else if (a == "--wait-events") {
      o.wait_events = bounded(value(), "--wait-events", 0, 100000000);
    } else if (a == "--timeout") {
      o.timeout_s = bounded(value(), "--timeout", 1, 3600);
    } else if (a.starts_with("-")) {
      throw std::invalid_argument("unknown option " + a);
    } else if (!o.path.empty()) {
      throw std::invalid_argument("one session file or folder only (got '" + o.path.string() +
                                  "' and '" + a + "')");
    } else {
      o.path = a;
    }
  }
  if (!o.compare.empty() && o.attach)
    throw std::invalid_argument("--compare takes two session files, not --attach");
  if (o.attach && !o.path.empty())
    throw std::invalid_argument("--attach follows a running kernel, not a file ('" +
                                o.path.string() + "'): give its connection file to --attach");
  if (!o.attach && (!o.host.empty() || o.port != 0))
    throw std::invalid_argument("--host and --port go with --attach");
  if (o.path.empty())
    o.path = jupyter_runtime_dir();
  return o;
}

std::string ViewerOptions::usage() {
  return "usage: npcompile-viewer [SESSION.json | FOLDER] [--screenshot OUT.png] [--size WxH]\n"
         "                        [--frames N]\n"
         "  Shows an npcompile session file and reloads it when it changes. Given a folder\n"
         "  (default: the Jupyter runtime folder, where the npcompile kernel writes\n"
         "  npcompile-session-<kernel>.json), shows the newest npcompile-*.json in it.\n"
         "  --screenshot renders one frame offscreen into a PNG and exits; with --frames N it\n"
         "  draws N frames first and prints the median time one takes to lay out (the\n"
         "  panels and the timeline, without the GPU's drawing).\n"
         "\n"
         "usage: npcompile-viewer --compare BEFORE.json AFTER.json\n"
         "  Two sessions side by side: the headline numbers, each traced function's calls,\n"
         "  breaks, compile and kernel time, and the graph breaks fixed or new.\n"
         "\n"
         "usage: npcompile-viewer --attach [kernel-<id>.json | npcompile-attach-*.json]\n"
         "                        [--host H] [--port P]\n"
         "  Follows a running npcompile kernel live: events stream over a loopback socket,\n"
         "  signed with the kernel's key (from its connection file). Without a file, the\n"
         "  newest running kernel in the Jupyter runtime folder. A remote kernel: forward its\n"
         "  port with `ssh -N -L P:127.0.0.1:<port in its attach file> host`, copy its\n"
         "  connection and attach files here, and add --port P. It reconnects when the\n"
         "  kernel restarts. With --screenshot, --wait-events N waits (at most --timeout S,\n"
         "  20 s) until N events have arrived.\n";
}

std::filesystem::path jupyter_runtime_dir() {
  if (auto p = env_path("JUPYTER_RUNTIME_DIR"); !p.empty())
    return p;
  if (auto p = env_path("JUPYTER_DATA_DIR"); !p.empty())
    return p / "runtime";
  if (auto p = env_path("XDG_DATA_HOME"); !p.empty())
    return p / "jupyter" / "runtime";
  return env_path("HOME") / ".local" / "share" / "jupyter" / "runtime";
}
} // namespace npc::viewer
