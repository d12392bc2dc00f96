#pragma once
// Escapes text for HTML element content and attribute values (& < > " ').
#include <string>
#include <string_view>

namespace npc::prof {
std::string html_escape(std::string_view text);
void html_escape_to(std::string& out, std::string_view text);
} // namespace npc::prof
