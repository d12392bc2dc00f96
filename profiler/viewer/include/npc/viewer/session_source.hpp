#pragma once
// Which session file to show, and whether it changed: a file as given, or the newest
// npcompile-*.json in a folder (the kernel's runtime folder holds one per kernel). Polled, not
// watched: the writers replace files atomically, so a changed (mtime, size) or a different
// newest file is a complete new version.
#include <cstdint>
#include <filesystem>

namespace npc::viewer {
class SessionSource {
public:
  explicit SessionSource(std::filesystem::path path);

  const std::filesystem::path& path() const { return path_; }
  // The file to show now; empty when there is none (yet).
  std::filesystem::path current() const;
  // True when the file to show, or its mtime or size, differs from what the last call saw.
  // The first call is true when there is a file.
  bool poll();

  // The most recently modified npcompile-*.json directly in `dir`; empty if none.
  static std::filesystem::path newest_session(const std::filesystem::path& dir);

private:
  std::filesystem::path path_;
  std::filesystem::path seen_file_{};
  std::filesystem::file_time_type seen_mtime_{};
  std::uintmax_t seen_size_ = 0;
};
} // namespace npc::viewer
