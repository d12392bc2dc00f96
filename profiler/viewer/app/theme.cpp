#include "theme.hpp"

#include <filesystem>

#include "npc/viewer/rgb.hpp"

namespace npc::viewer {
namespace {
// Latin-1, general punctuation (· … – —), arrows (→ ↔), ≤ ≥ and × are what reports print.
const ImWchar kRanges[] = {0x0020, 0x00FF, 0x2010, 0x205E, 0x2190, 0x21FF, 0x2264, 0x2265, 0};

ImFont* font(const char* file, float size) {
  const std::filesystem::path dir = "/usr/share/fonts/truetype/dejavu";
  const auto path = dir / file;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return nullptr;
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  return ImGui::GetIO().Fonts->AddFontFromFileTTF(path.c_str(), size, &cfg, kRanges);
}

ImVec4 v4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }
} // namespace

ImU32 Theme::colour(std::string_view hex, int alpha) {
  const auto c = Rgb::from_hex(hex);
  return IM_COL32(c.r, c.g, c.b, alpha);
}

ImU32 Theme::token_colour(char kind) {
  // The HTML report's code colours (render_html's .npc-h? rules).
  switch (kind) {
  case 'k': return IM_COL32(0xcf, 0x22, 0x2e, 0xff);
  case 't': return IM_COL32(0x82, 0x50, 0xdf, 0xff);
  case 'n': return IM_COL32(0x05, 0x50, 0xae, 0xff);
  case 'c': return IM_COL32(0x6e, 0x77, 0x81, 0xff);
  case 's': return IM_COL32(0x0a, 0x30, 0x69, 0xff);
  case 'p': return IM_COL32(0x95, 0x38, 0x00, 0xff);
  default: return kText;
  }
}

Theme Theme::install() {
  Theme t;
  t.body = font("DejaVuSans.ttf", 15.0f);
  if (!t.body)
    t.body = ImGui::GetIO().Fonts->AddFontDefault();
  t.bold = font("DejaVuSans-Bold.ttf", 15.0f);
  t.title = font("DejaVuSans-Bold.ttf", 19.0f);
  t.mono = font("DejaVuSansMono.ttf", 14.0f);
  if (!t.bold)
    t.bold = t.body;
  if (!t.title)
    t.title = t.bold;
  if (!t.mono)
    t.mono = t.body;

  ImGui::StyleColorsLight();
  auto& s = ImGui::GetStyle();
  s.WindowPadding = {16, 12};
  s.FramePadding = {8, 4};
  s.ItemSpacing = {8, 6};
  s.CellPadding = {8, 4};
  s.ScrollbarSize = 12;
  s.FrameRounding = s.ChildRounding = s.GrabRounding = s.PopupRounding = 4;
  s.ScrollbarRounding = 6;
  s.WindowBorderSize = 0;
  s.ChildBorderSize = 1;
  auto* c = s.Colors;
  c[ImGuiCol_Text] = v4(kText);
  c[ImGuiCol_TextDisabled] = v4(kMuted);
  c[ImGuiCol_WindowBg] = v4(IM_COL32_WHITE);
  c[ImGuiCol_ChildBg] = v4(IM_COL32_WHITE);
  c[ImGuiCol_Border] = v4(kBorder);
  c[ImGuiCol_Header] = v4(IM_COL32(0xea, 0xee, 0xf2, 0xff));
  c[ImGuiCol_HeaderHovered] = v4(IM_COL32(0xdd, 0xe4, 0xeb, 0xff));
  c[ImGuiCol_HeaderActive] = v4(IM_COL32(0xd0, 0xd7, 0xde, 0xff));
  c[ImGuiCol_TableHeaderBg] = v4(kPanel);
  c[ImGuiCol_TableBorderLight] = v4(IM_COL32(0xea, 0xee, 0xf2, 0xff));
  c[ImGuiCol_TableBorderStrong] = v4(kBorder);
  c[ImGuiCol_TableRowBgAlt] = v4(IM_COL32(0xf6, 0xf8, 0xfa, 0xff));
  c[ImGuiCol_ScrollbarBg] = v4(IM_COL32(0xf6, 0xf8, 0xfa, 0xff));
  return t;
}
} // namespace npc::viewer
