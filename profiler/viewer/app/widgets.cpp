#include "widgets.hpp"

#include <string>

namespace npc::viewer {
bool section(const Theme& t, const char* title, std::size_t count, bool warn,
             const char* empty) {
  ImGui::Spacing();
  ImGui::PushFont(t.bold);
  const std::string label = std::string(title) + "###" + title;
  const bool open = ImGui::CollapsingHeader(label.c_str(), ImGuiTreeNodeFlags_DefaultOpen);
  const float title_w = ImGui::CalcTextSize(title).x, arrow_w = ImGui::GetFontSize();
  ImGui::PopFont();
  // The count badge, drawn over the header's right end.
  const auto n = std::to_string(count);
  const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
  const ImVec2 ts = ImGui::CalcTextSize(n.c_str());
  const float h = hi.y - lo.y;
  const float pad = ImGui::GetStyle().FramePadding.x;
  const ImVec2 p0{lo.x + pad * 2 + arrow_w + title_w + 10, lo.y + 3};
  const ImVec2 p1{p0.x + ts.x + 14, lo.y + h - 3};
  auto* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(p0, p1, warn && count ? Theme::kWarnBg : IM_COL32(0xea, 0xee, 0xf2, 0xff),
                    (p1.y - p0.y) / 2);
  dl->AddText({p0.x + 7, lo.y + (h - ts.y) / 2}, warn && count ? Theme::kWarn : Theme::kMuted,
              n.c_str());
  if (open && count == 0 && empty) {
    empty_note(empty);
    return false;
  }
  return open;
}

void pill(std::string_view s, ImU32 fg, ImU32 bg, ImFont* font) {
  if (font)
    ImGui::PushFont(font);
  const char* b = s.data();
  const char* e = b + s.size();
  const ImVec2 ts = ImGui::CalcTextSize(b, e);
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  const ImVec2 size{ts.x + 14, ts.y + 2};
  auto* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(pos, {pos.x + size.x, pos.y + size.y}, bg, size.y / 2);
  dl->AddText({pos.x + 7, pos.y + 1}, fg, b, e);
  ImGui::Dummy(size);
  if (font)
    ImGui::PopFont();
}

void text(std::string_view s, ImU32 colour, ImFont* font) {
  if (font)
    ImGui::PushFont(font);
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextUnformatted(s.data(), s.data() + s.size());
  ImGui::PopStyleColor();
  if (font)
    ImGui::PopFont();
}

void wrapped(std::string_view s, ImU32 colour, ImFont* font) {
  ImGui::PushTextWrapPos(0.0f);
  text(s, colour, font);
  ImGui::PopTextWrapPos();
}

void code_line(const Theme& t, std::string_view code) {
  ImGui::PushFont(t.mono);
  const ImVec2 pos = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  const float h = ImGui::GetTextLineHeight() + 8;
  auto* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled(pos, {pos.x + w, pos.y + h}, Theme::kPanel, 4);
  dl->AddRectFilled(pos, {pos.x + 3, pos.y + h}, Theme::kBorder);
  dl->PushClipRect(pos, {pos.x + w - 4, pos.y + h}, true);
  dl->AddText({pos.x + 12, pos.y + 4}, Theme::kText, code.data(), code.data() + code.size());
  dl->PopClipRect();
  ImGui::Dummy({w, h});
  ImGui::PopFont();
}

void empty_note(std::string_view s) {
  ImGui::Indent(6);
  text(s, Theme::kMuted);
  ImGui::Unindent(6);
}
void begin_full_window(const char* name) {
  ImGui::SetNextWindowPos({0, 0});
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  constexpr auto flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                         ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin(name, nullptr, flags);
}
} // namespace npc::viewer
