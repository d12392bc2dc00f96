#include "npc/prof/html_escape.hpp"

namespace npc::prof {
void html_escape_to(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    case '\0':
      break; // never valid in HTML text
    default:
      out += c;
    }
  }
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  html_escape_to(out, text);
  return out;
}
} // namespace npc::prof
