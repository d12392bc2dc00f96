#pragma once
// The command line of npcompile-viewer:
//   npcompile-viewer [SESSION.json | FOLDER] [--screenshot OUT.png] [--size WxH] [--frames N]
//   npcompile-viewer --compare BEFORE.json AFTER.json [--screenshot OUT.png]
//   npcompile-viewer --attach [CONNECTION_OR_ATTACH_FILE] [--host H] [--port P]
//                    [--screenshot OUT.png --wait-events N --timeout S]
// Without a path it watches the Jupyter runtime folder, where the kernel writes its session.
#include <filesystem>
#include <string>
#include <vector>

namespace npc::viewer {
struct ViewerOptions {
  std::filesystem::path path{};       // a session file, or a folder to take the newest from
  std::filesystem::path screenshot{}; // render one frame into this PNG and exit
  int width = 1440;
  int height = 900;
  int frames = 0; // with --screenshot: draw this many frames first and print their time
  bool help = false;
  // --attach: follow a running session live (npc/prof/attach_client.hpp); attach_path is a
  // kernel's connection file or an attach file, empty for the newest running kernel
  bool attach = false;
  std::filesystem::path attach_path{};
  std::string host{}; // in place of the attach file's (an SSH tunnel's end)
  int port = 0;
  std::filesystem::path compare{}; // --compare BEFORE AFTER: `path` is AFTER, this BEFORE
  int wait_events = 0; // with --screenshot: wait for this many events first
  int timeout_s = 20;  // ... for at most this long

  // Throws std::invalid_argument (its what() says which argument) on a bad command line.
  static ViewerOptions parse(const std::vector<std::string>& args);
  static std::string usage();
};

// Where `jupyter_core.paths.jupyter_runtime_dir()` points, from the same environment
// variables: $JUPYTER_RUNTIME_DIR, $JUPYTER_DATA_DIR/runtime, $XDG_DATA_HOME/jupyter/runtime,
// ~/.local/share/jupyter/runtime.
std::filesystem::path jupyter_runtime_dir();
} // namespace npc::viewer
