// Kernels: a table of every kernel (target, graph, runs, time), and the selected kernel's
// exact generated source below it.
#include <algorithm>
#include <string>

#include "npc/prof/units.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
namespace {
void kernel_table(const SessionView& v, ViewerState& s, const Theme& t) {
  const auto& ks = v.report.kernels;
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  const float rows = static_cast<float>(std::min<std::size_t>(ks.size(), 7));
  constexpr auto flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                         ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_ScrollY |
                         ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("kernels", 6, flags, {0, row_h * (rows + 1) + 4}))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("kernel", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("target", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("graph", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableSetupColumn("runs", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableSetupColumn("total", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableSetupColumn("median", ImGuiTableColumnFlags_WidthStretch, 1.1f);
  ImGui::TableHeadersRow();
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const auto& k = ks[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::PushFont(t.mono);
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::Selectable(k.name.c_str(), s.kernel == i, ImGuiSelectableFlags_SpanAllColumns))
      s.kernel = i;
    ImGui::PopID();
    ImGui::PopFont();
    ImGui::TableNextColumn();
    text(k.target, Theme::kMuted);
    ImGui::TableNextColumn();
    text(k.graph_id >= 0 ? std::to_string(k.graph_id) : "");
    ImGui::TableNextColumn();
    text(std::to_string(k.runs));
    ImGui::TableNextColumn();
    text(k.runs ? prof::Units::ms(k.total_ms) : "");
    ImGui::TableNextColumn();
    text(k.runs ? prof::Units::ms(k.median_ms) : "");
  }
  ImGui::EndTable();
}
} // namespace

void draw_kernels(const SessionView& v, ViewerState& s, const Theme& t) {
  const auto& ks = v.report.kernels;
  if (!section(t, "Kernels", ks.size(), false, "No kernel was compiled."))
    return;
  // The first kernel with source is a better default than one without (reference runs).
  if (s.kernel >= ks.size() || (ks[s.kernel].source.empty() && s.kernel == 0)) {
    s.kernel = 0;
    for (std::size_t i = 0; i < ks.size(); ++i)
      if (!ks[i].source.empty()) {
        s.kernel = i;
        break;
      }
  }
  kernel_table(v, s, t);
  const auto& k = ks[s.kernel];
  ImGui::Spacing();
  text(k.name, Theme::kText, t.bold);
  ImGui::SameLine(0, 10);
  text(k.target + (k.graph_id >= 0 ? " · graph " + std::to_string(k.graph_id) : "") +
           (k.gbps > 0 ? " · " + prof::Units::gbps(k.gbps) : ""),
       Theme::kMuted);
  for (const auto& op : k.ops) {
    std::string line = op.op;
    if (op.lineno > 0)
      line += " (line " + std::to_string(op.lineno) + ")";
    if (!op.text.empty())
      line += ": " + op.text;
    ImGui::Bullet();
    text(line, Theme::kMuted, t.mono);
  }
  if (k.source.empty()) {
    empty_note("No source: this ran as NumPy calls (the reference path).");
    return;
  }
  draw_code(v.sources[s.kernel], t, "source", {0, std::max(160.0f, ImGui::GetContentRegionAvail().y)});
}
} // namespace npc::viewer
