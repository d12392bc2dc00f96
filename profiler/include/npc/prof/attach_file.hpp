#pragma once
// Where a live session listens, for npcompile-viewer --attach: the attach file, JSON beside
// the kernel's connection file (npcompile-attach-<connection file's name>) or wherever
// npcompile.attach.serve() was told, mode 0600:
//   {"npcompile_attach": 1, "host": "127.0.0.1", "port": 52114, "pid": 4242,
//    "connection_file": "/run/user/1000/jupyter/kernel-<id>.json"}   (a kernel: its key)
//   or "key": "<hex>" in its place (a process that is not a kernel)
// A restarted kernel rewrites it with its new port; the viewer reads it before each attempt.
#include <filesystem>
#include <string>

namespace npc::prof {
struct AttachInfo {
  std::string host = "127.0.0.1";
  int port = 0;
  int pid = 0;
  std::string key{};
  std::filesystem::path connection_file{};
};

// Writes the file atomically with mode 0600 (it names the key, or holds it).
void write_attach_file(const std::filesystem::path& path, const AttachInfo& info);

// The attach file of a kernel whose connection file this is.
std::filesystem::path attach_file_for(const std::filesystem::path& connection_file);

// What to connect to, from an attach file or from a kernel's connection file (then the attach
// file beside it); the key from the file or from the connection file it names. Throws
// std::runtime_error saying what is missing.
AttachInfo read_attach(const std::filesystem::path& path);

// The newest npcompile-attach-*.json in `dir` whose process is alive; empty when none (the
// picker behind a bare --attach).
std::filesystem::path newest_live_attach(const std::filesystem::path& dir);
} // namespace npc::prof
