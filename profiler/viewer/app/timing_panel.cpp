// Kernel timings as horizontal bars (the report's TimingChart), then compiled vs eager per
// graph where an eager run was timed.
#include <algorithm>
#include <string>

#include "npc/prof/kernel_palette.hpp"
#include "npc/prof/units.hpp"
#include "panels.hpp"
#include "widgets.hpp"

namespace npc::viewer {
namespace {
void eager_table(const SessionView& v, const Theme& t) {
  const auto& gs = v.report.graph_timings;
  if (std::none_of(gs.begin(), gs.end(), [](const auto& g) { return g.eager_ms > 0; }))
    return;
  ImGui::Spacing();
  text("Compiled vs eager NumPy, per execution", Theme::kText, t.bold);
  constexpr auto flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingStretchSame;
  if (!ImGui::BeginTable("eager", 5, flags))
    return;
  for (const char* h : {"graph", "runs", "compiled", "eager", "speedup"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const auto& g : gs) {
    if (!(g.eager_ms > 0))
      continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    text(std::to_string(g.graph_id), Theme::kText, t.mono);
    ImGui::TableNextColumn();
    text(std::to_string(g.runs));
    ImGui::TableNextColumn();
    text(prof::Units::ms(g.compiled_ms));
    ImGui::TableNextColumn();
    text(prof::Units::ms(g.eager_ms));
    ImGui::TableNextColumn();
    text(prof::Units::speedup(g.speedup), g.speedup >= 1 ? Theme::kGood : Theme::kWarn, t.bold);
  }
  ImGui::EndTable();
}
} // namespace

void draw_timing(const SessionView& v, const Theme& t) {
  const auto& chart = v.timing;
  if (!section(t, "Kernel timings", chart.rows.size()))
    return;
  if (chart.rows.empty()) {
    empty_note("No kernel ran.");
    eager_table(v, t);
    return;
  }
  const float row = 24, label_w = 170, axis_h = 20;
  const float avail = ImGui::GetContentRegionAvail().x;
  // Room on the right for "3.00 ms · 2 runs · median 1.50 ms".
  const float bar_w = std::max(80.0f, avail - label_w - 260);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const float bottom = o.y + row * static_cast<float>(chart.rows.size());
  auto* dl = ImGui::GetWindowDrawList();
  const float x0 = o.x + label_w;
  float label_end = -1e9f; // a narrow chart labels every other tick rather than overlap
  for (double tick = 0; tick <= chart.max_ms * 1.0001; tick += chart.step_ms) {
    const float x = x0 + static_cast<float>(tick / chart.max_ms) * bar_w;
    dl->AddLine({x, o.y}, {x, bottom}, tick == 0 ? Theme::kMuted : Theme::kGrid);
    const std::string lbl = tick == 0 ? std::string("0") : prof::Units::ms(tick);
    const float lw = ImGui::CalcTextSize(lbl.c_str()).x;
    if (x - lw / 2 < label_end + 10)
      continue;
    dl->AddText({x - lw / 2, bottom + 3}, Theme::kMuted, lbl.c_str());
    label_end = x + lw / 2;
  }
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    const auto& k = v.report.kernels[chart.rows[r]];
    const float y = o.y + row * static_cast<float>(r);
    ImGui::PushFont(t.mono);
    std::string name = k.name;
    while (name.size() > 4 && ImGui::CalcTextSize(name.c_str()).x > label_w - 12)
      name = name.substr(0, name.size() - 2) + "…";
    const float nw = ImGui::CalcTextSize(name.c_str()).x;
    dl->AddText({x0 - 8 - nw, y + 4}, Theme::kText, name.c_str());
    ImGui::PopFont();
    const float w = std::max(2.0f, static_cast<float>(k.total_ms / chart.max_ms) * bar_w);
    dl->AddRectFilled({x0, y + 4}, {x0 + w, y + row - 4},
                      Theme::colour(prof::KernelPalette::target(k.target)), 2);
    const auto label = prof::TimingChart::bar_label(k);
    dl->AddText({x0 + w + 6, y + 4}, Theme::kText, label.c_str());
    ImGui::SetCursorScreenPos({o.x, y});
    const auto id = "bar" + std::to_string(r);
    ImGui::InvisibleButton(id.c_str(), {avail, row});
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s", prof::TimingChart::details(k).c_str());
  }
  ImGui::SetCursorScreenPos({o.x, bottom + axis_h + 4});
  // Legend: the colours are targets.
  for (const char* target : {"cpu", "cuda", "reference"}) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddRectFilled({p.x, p.y + 4}, {p.x + 12, p.y + 14},
                      Theme::colour(prof::KernelPalette::target(target)), 2);
    ImGui::Dummy({14, 14});
    ImGui::SameLine(0, 4);
    text(target, Theme::kMuted);
    ImGui::SameLine(0, 16);
  }
  ImGui::NewLine();
  eager_table(v, t);
}
} // namespace npc::viewer
