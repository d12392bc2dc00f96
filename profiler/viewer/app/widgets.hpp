#pragma once
// Small drawing helpers the panels share: section headers, pills, muted and code lines.
#include <imgui.h>
#include <string_view>

#include "theme.hpp"

namespace npc::viewer {
// A collapsing section titled "Title" with a count badge; open by default. True when open
// and there is something to show; with nothing, it says `empty` (when given) and is false.
bool section(const Theme& t, const char* title, std::size_t count, bool warn = false,
             const char* empty = nullptr);
// A rounded label inline with the text after it ("3×", "cpu").
void pill(std::string_view text, ImU32 fg, ImU32 bg, ImFont* font = nullptr);
void text(std::string_view s, ImU32 colour = Theme::kText, ImFont* font = nullptr);
void wrapped(std::string_view s, ImU32 colour = Theme::kText, ImFont* font = nullptr);
// One line of code on a grey band, as the report prints the user's source line.
void code_line(const Theme& t, std::string_view code);
// A "nothing here" note.
void empty_note(std::string_view s);
// A window filling the display, without decorations: the viewer's, the comparison's.
void begin_full_window(const char* name);
} // namespace npc::viewer
