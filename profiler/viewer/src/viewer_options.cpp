#include "npc/viewer/viewer_options.hpp"

#include <cstdlib>
#include <stdexcept>

namespace npc::viewer {
namespace {
int positive(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 64 || v > 16384)
    throw std::invalid_argument("bad " + what + " '" + text + "' (64 to 16384 pixels)");
  return v;
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
      o.width = positive(v.substr(0, x), "width");
      o.height = positive(v.substr(x + 1), "height");
    } else if (a == "--frames") {
      const auto& v = value();
      std::size_t used = 0;
      try {
        o.frames = std::stoi(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || o.frames < 1 || o.frames > 100000)
        throw std::invalid_argument("bad --frames '" + v + "' (1 to 100000)");
    } else if (a.starts_with("-")) {
      throw std::invalid_argument("unknown option " + a);
    } else if (!o.path.empty()) {
      throw std::invalid_argument("one session file or folder only (got '" + o.path.string() +
                                  "' and '" + a + "')");
    } else {
      o.path = a;
    }
  }
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
         "  panels and the timeline, without the GPU's drawing).\n";
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
