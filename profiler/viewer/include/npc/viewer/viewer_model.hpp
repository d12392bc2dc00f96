#pragma once
// The viewer's state apart from drawing: which file, the last good view of it, and the error
// of the last load that failed. The UI calls refresh() a few times a second and never waits on
// the producer; a bad file keeps the last good view on screen with the error above it.
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "npc/prof/attach_client.hpp"

#include "npc/viewer/session_source.hpp"
#include "npc/viewer/session_view.hpp"

namespace npc::viewer {
class ViewerModel {
public:
  explicit ViewerModel(std::filesystem::path path);
  // A live session (npcompile-viewer --attach): the client's document, shown as it grows;
  // `label` says where it comes from (the attach or connection file).
  ViewerModel(std::unique_ptr<prof::AttachClient> client, std::filesystem::path label);

  // Loads the file when it is new or changed; true when view() or error() changed.
  bool refresh();
  const SessionView* view() const { return view_ ? &*view_ : nullptr; }
  const std::string& error() const { return error_; }
  const SessionSource& source() const { return source_; }
  int loads() const { return loads_; } // successful loads so far
  std::chrono::system_clock::time_point loaded_at() const { return loaded_at_; }
  bool attached() const { return client_ != nullptr; }
  // The live attach's state in words ("live: pid 4242 at 127.0.0.1:52114", "refused: ..."),
  // empty for a file.
  std::string attach_status() const { return client_ ? client_->status() : std::string(); }
  bool live() const { return client_ && client_->live(); }

private:
  bool refresh_live();

  std::unique_ptr<prof::AttachClient> client_{};
  std::optional<nlohmann::json> pending_{}; // a live document not shown yet
  std::chrono::steady_clock::time_point built_at_{};
  SessionSource source_;
  std::optional<SessionView> view_{};
  std::string error_{};
  int loads_ = 0;
  std::chrono::system_clock::time_point loaded_at_{};
};
} // namespace npc::viewer
