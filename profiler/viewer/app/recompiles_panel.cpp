// Recompiles: which guard failed, as before → after.
#include <string>

#include "npc/prof/source_location.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
void draw_recompiles(const SessionView& v, const Theme& t) {
  const auto& rs = v.report.recompiles;
  if (!section(t, "Recompiles", rs.size(), true, "None: every cached graph's guards held."))
    return;
  constexpr auto flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                         ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("recompiles", 3, flags))
    return;
  ImGui::TableSetupColumn("function / where", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("graph", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("guard that failed: before → after", ImGuiTableColumnFlags_WidthStretch,
                          1.6f);
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const auto& r = rs[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    text(r.function.empty() ? "?" : r.function, Theme::kText, t.mono);
    const auto loc = prof::source_location(r.filename, r.lineno);
    if (!loc.empty())
      wrapped(loc, Theme::kMuted); // long paths wrap inside the column
    ImGui::TableNextColumn();
    text(r.graph_id >= 0 ? std::to_string(r.graph_id) : "", Theme::kText, t.mono);
    ImGui::TableNextColumn();
    for (const auto& g : v.guards[i]) {
      if (g.before.empty() && g.after.empty()) {
        wrapped(g.what);
        continue;
      }
      if (!g.what.empty()) {
        text(g.what, Theme::kMuted, t.mono);
        ImGui::SameLine(0, 8);
      }
      text(g.before, Theme::kBad, t.mono);
      ImGui::SameLine(0, 6);
      text("→", Theme::kMuted);
      ImGui::SameLine(0, 6);
      text(g.after, Theme::kGood, t.mono);
    }
  }
  ImGui::EndTable();
}
} // namespace npc::viewer
