#include "npc/viewer/session_source.hpp"

#include <system_error>

namespace npc::viewer {
namespace {
bool is_session_name(const std::filesystem::path& p) {
  const auto name = p.filename().string();
  return name.starts_with("npcompile-") && name.ends_with(".json");
}
} // namespace

SessionSource::SessionSource(std::filesystem::path path) : path_(std::move(path)) {}

std::filesystem::path SessionSource::newest_session(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path best;
  std::filesystem::file_time_type best_time{};
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fe;
    if (!it->is_regular_file(fe) || !is_session_name(it->path()))
      continue;
    const auto t = it->last_write_time(fe);
    // Ties go to the later name: file names carry the start time.
    if (!fe && (best.empty() || t > best_time || (t == best_time && it->path() > best))) {
      best = it->path();
      best_time = t;
    }
  }
  return best;
}

std::filesystem::path SessionSource::current() const {
  std::error_code ec;
  if (std::filesystem::is_directory(path_, ec))
    return newest_session(path_);
  return std::filesystem::exists(path_, ec) ? path_ : std::filesystem::path();
}

bool SessionSource::poll() {
  const auto file = current();
  std::error_code ec;
  const auto mtime = file.empty() ? std::filesystem::file_time_type{}
                                  : std::filesystem::last_write_time(file, ec);
  const auto size = file.empty() || ec ? 0 : std::filesystem::file_size(file, ec);
  const bool changed = file != seen_file_ || mtime != seen_mtime_ || size != seen_size_;
  seen_file_ = file;
  seen_mtime_ = mtime;
  seen_size_ = size;
  return changed && !file.empty();
}
} // namespace npc::viewer
