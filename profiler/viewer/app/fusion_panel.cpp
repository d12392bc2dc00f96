// Fused graphs: every op as a chip in the colour of the kernel it went into (grey: not in a
// kernel), then fusion's decisions in words.
#include <map>
#include <set>
#include <string>

#include "npc/prof/kernel_palette.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
namespace {
void chips(const prof::FusionGraph& g, const Theme& t) {
  auto* dl = ImGui::GetWindowDrawList();
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  const float h = ImGui::GetTextLineHeight() + 6;
  ImGui::PushFont(t.mono);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& n = g.nodes[i];
    const std::string label = n.op + (n.kernel >= 0 ? " k" + std::to_string(n.kernel) : "");
    const float w = ImGui::CalcTextSize(label.c_str()).x + 14;
    if (i > 0) {
      ImGui::SameLine(0, 6);
      if (ImGui::GetCursorScreenPos().x + w > right)
        ImGui::NewLine();
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(p, {p.x + w, p.y + h}, Theme::colour(prof::KernelPalette::fill(n.kernel)), 4);
    dl->AddRect(p, {p.x + w, p.y + h}, Theme::colour(prof::KernelPalette::stroke(n.kernel)), 4);
    dl->AddText({p.x + 7, p.y + 3}, Theme::kText, label.c_str());
    ImGui::PushID(static_cast<int>(i));
    ImGui::InvisibleButton("node", {w, h});
    ImGui::PopID();
    if (ImGui::IsItemHovered()) {
      std::string ins;
      for (auto id : n.inputs)
        ins += (ins.empty() ? "" : ", ") + std::to_string(id);
      ImGui::SetTooltip("#%lld %s\n%s\nkernel: %s\ninputs: %s", static_cast<long long>(n.id),
                        n.op.c_str(), n.label.c_str(),
                        n.kernel >= 0 ? std::to_string(n.kernel).c_str() : "none",
                        ins.empty() ? "-" : ins.c_str());
    }
  }
  ImGui::PopFont();
}
} // namespace

void draw_fusion(const SessionView& v, const Theme& t) {
  const auto& gs = v.report.graphs;
  if (!section(t, "Fused graphs", gs.size(), false, "No graph was compiled."))
    return;
  for (const auto& g : gs) {
    ImGui::PushID(static_cast<int>(g.graph_id));
    std::set<std::int64_t> kernels;
    std::size_t ops = 0;
    for (const auto& n : g.nodes) {
      if (n.kernel >= 0)
        kernels.insert(n.kernel);
      ops += n.kernel >= 0;
    }
    text("graph " + std::to_string(g.graph_id), Theme::kText, t.bold);
    ImGui::SameLine(0, 10);
    text(std::to_string(ops) + (ops == 1 ? " op" : " ops") + " fused into " +
             std::to_string(kernels.size()) + (kernels.size() == 1 ? " kernel" : " kernels") +
             ", " + std::to_string(g.nodes.size() - ops) + " outside",
         Theme::kMuted);
    chips(g, t);
    for (const auto& d : g.decisions) {
      ImGui::Bullet();
      wrapped(d);
    }
    ImGui::Spacing();
    ImGui::PopID();
  }
}
} // namespace npc::viewer
