#include "npc/viewer/viewer_model.hpp"

#include <exception>

namespace npc::viewer {
ViewerModel::ViewerModel(std::filesystem::path path) : source_(std::move(path)) {}

bool ViewerModel::refresh() {
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
