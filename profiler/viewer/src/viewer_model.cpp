#include "npc/viewer/viewer_model.hpp"

#include <exception>

namespace npc::viewer {
namespace {
// A live session's view is rebuilt at most this often: a kernel emitting thousands of events
// a second would otherwise have the viewer rebuild its whole report at every frame.
constexpr std::chrono::milliseconds kLiveRebuild{250};
} // namespace

ViewerModel::ViewerModel(std::filesystem::path path) : source_(std::move(path)) {}

ViewerModel::ViewerModel(std::unique_ptr<prof::AttachClient> client, std::filesystem::path label)
    : client_(std::move(client)), source_(std::move(label)) {}

bool ViewerModel::refresh_live() {
  if (auto doc = client_->take_document())
    pending_ = std::move(doc);
  const auto now = std::chrono::steady_clock::now();
  if (!pending_ || (loads_ > 0 && now - built_at_ < kLiveRebuild)) {
    const bool was = error_.empty();
    error_ = client_->live() || view_ ? std::string() : client_->status();
    return was != error_.empty();
  }
  try {
    view_ = SessionView::from_json(*pending_, source_.path());
    error_.clear();
    ++loads_;
    loaded_at_ = std::chrono::system_clock::now();
  } catch (const std::exception& e) {
    error_ = std::string("the live session: ") + e.what();
  }
  pending_.reset();
  built_at_ = now;
  return true;
}

bool ViewerModel::refresh() {
  if (client_)
    return refresh_live();
  if (!source_.poll()) {
    // Nothing to show yet is worth saying once; a vanished file keeps the last view.
    if (!view_ && error_.empty()) {
      error_ = "no npcompile session file at " + source_.path().string() + " (yet)";
      return true;
    }
    return false;
  }
  try {
    view_ = SessionView::load(source_.current());
    error_.clear();
    ++loads_;
    loaded_at_ = std::chrono::system_clock::now();
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  return true;
}
} // namespace npc::viewer
