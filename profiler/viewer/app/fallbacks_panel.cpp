// Fallbacks: graphs that ran in eager NumPy because compiling or running them failed.
#include <string>

#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
void draw_fallbacks(const SessionView& v, const Theme& t) {
  const auto& fs = v.report.fallbacks;
  if (fs.empty() || !section(t, "Fallbacks to eager NumPy", fs.size(), true))
    return;
  for (const auto& f : fs) {
    if (f.graph_id >= 0) {
      pill("graph " + std::to_string(f.graph_id), Theme::kMuted, Theme::kPanel);
      ImGui::SameLine(0, 8);
    }
    wrapped(f.reason, Theme::kText, t.bold);
    if (!f.detail.empty())
      wrapped(f.detail, Theme::kMuted);
  }
}
} // namespace npc::viewer
