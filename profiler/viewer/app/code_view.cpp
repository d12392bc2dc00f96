// Generated source: line numbers in a gutter, tokens coloured as in the notebook report,
// only visible lines drawn (ImGuiListClipper), scrollable both ways.
#include <algorithm>
#include <string>

#include "panels.hpp"

namespace npc::viewer {
void draw_code(const HighlightedCode& code, const Theme& t, const char* id, ImVec2 size) {
  ImGui::PushStyleColor(ImGuiCol_ChildBg, Theme::kPanel);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, {0, 6});
  ImGui::BeginChild(id, size, true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(t.mono);
  const auto& lines = code.lines();
  const float line_h = ImGui::GetTextLineHeight() + 1;
  const float char_w = ImGui::CalcTextSize("M").x;
  const auto digits = std::to_string(lines.size()).size();
  const float gutter = char_w * static_cast<float>(digits) + 20;
  const float width = gutter + 10 + char_w * static_cast<float>(code.longest_line() + 2);
  auto* dl = ImGui::GetWindowDrawList();
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(lines.size()), line_h);
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const auto num = std::to_string(i + 1);
      dl->AddText({p.x + gutter - 10 - char_w * static_cast<float>(num.size()), p.y},
                  Theme::kMuted, num.c_str());
      dl->AddLine({p.x + gutter - 5, p.y}, {p.x + gutter - 5, p.y + line_h}, Theme::kBorder);
      float x = p.x + gutter;
      for (const auto& run : lines[static_cast<std::size_t>(i)]) {
        const auto s = code.run_text(run);
        dl->AddText({x, p.y}, Theme::token_colour(run.kind), s.data(), s.data() + s.size());
        x += ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
      }
      ImGui::Dummy({width, line_h});
    }
  }
  ImGui::PopFont();
  ImGui::EndChild();
  ImGui::PopStyleVar();
  ImGui::PopStyleColor();
}
} // namespace npc::viewer
