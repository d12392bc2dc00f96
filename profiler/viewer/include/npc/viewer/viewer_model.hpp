#pragma once
// The viewer's state apart from drawing: which file, the last good view of it, and the error
// of the last load that failed. The UI calls refresh() a few times a second and never waits on
// the producer; a bad file keeps the last good view on screen with the error above it.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "npc/viewer/session_source.hpp"
#include "npc/viewer/session_view.hpp"

namespace npc::viewer {
class ViewerModel {
public:
  explicit ViewerModel(std::filesystem::path path);

  // Loads the file when it is new or changed; true when view() or error() changed.
  bool refresh();
  const SessionView* view() const { return view_ ? &*view_ : nullptr; }
  const std::string& error() const { return error_; }
  const SessionSource& source() const { return source_; }
  int loads() const { return loads_; } // successful loads so far
  std::chrono::system_clock::time_point loaded_at() const { return loaded_at_; }

private:
  SessionSource source_;
  std::optional<SessionView> view_{};
  std::string error_{};
  int loads_ = 0;
  std::chrono::system_clock::time_point loaded_at_{};
};
} // namespace npc::viewer
