#pragma once
// The viewer's look: the notebook report's light palette, DejaVu fonts when installed
// (fonts-dejavu-core), ImGui's built-in font otherwise.
#include <imgui.h>
#include <string_view>

namespace npc::viewer {
struct Theme {
  ImFont* body = nullptr;
  ImFont* bold = nullptr;
  ImFont* title = nullptr;
  ImFont* mono = nullptr;

  static constexpr ImU32 kText = IM_COL32(0x1f, 0x23, 0x28, 0xff);
  static constexpr ImU32 kMuted = IM_COL32(0x57, 0x60, 0x6a, 0xff);
  static constexpr ImU32 kBorder = IM_COL32(0xd0, 0xd7, 0xde, 0xff);
  static constexpr ImU32 kPanel = IM_COL32(0xf6, 0xf8, 0xfa, 0xff);
  static constexpr ImU32 kWarn = IM_COL32(0x9a, 0x67, 0x00, 0xff);
  static constexpr ImU32 kWarnBg = IM_COL32(0xff, 0xf8, 0xc5, 0xff);
  static constexpr ImU32 kBad = IM_COL32(0xcf, 0x22, 0x2e, 0xff);
  static constexpr ImU32 kGood = IM_COL32(0x1a, 0x7f, 0x37, 0xff);
  static constexpr ImU32 kGoodBg = IM_COL32(0xda, 0xfb, 0xe1, 0xff);
  static constexpr ImU32 kLink = IM_COL32(0x09, 0x69, 0xda, 0xff);
  static constexpr ImU32 kGrid = IM_COL32(0xe1, 0xe6, 0xeb, 0xff);

  // Loads fonts into the atlas and sets the style; call once after ImGui::CreateContext.
  static Theme install();
  // A palette colour ("#4e79a7", from prof::KernelPalette) as ImGui's packed colour.
  static ImU32 colour(std::string_view hex, int alpha = 0xff);
  // The colour of a code token kind (prof::CodeHighlighter's k t n c s p, 0 plain).
  static ImU32 token_colour(char kind);
};
} // namespace npc::viewer
