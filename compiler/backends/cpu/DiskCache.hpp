#pragma once
#include <optional>
#include <string>

namespace npc {

// Object files on disk, one per key. Writes go to a temp file renamed into place,
// so concurrent processes never see half a file; a header with sizes and a
// checksum lets a truncated or corrupted file be detected and ignored.
class DiskCache {
public:
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}

  // The payload, or nullopt when absent or invalid (note says why when invalid).
  std::optional<std::string> load(const std::string& key, std::string* note = nullptr) const;
  // Best effort: a read-only or full disk only costs the next process a compile.
  bool store(const std::string& key, const std::string& payload, std::string* note = nullptr) const;

  std::string path_for(const std::string& key) const;

private:
  std::string dir_;
};

} // namespace npc
