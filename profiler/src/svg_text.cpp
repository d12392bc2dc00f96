#include "npc/prof/svg_text.hpp"

#include <cmath>
#include <cstdio>

namespace npc::prof {
std::string SvgText::truncate(std::string_view text, std::size_t max_chars) {
  std::size_t chars = 0, i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) != 0x80) {
      if (chars == max_chars)
        break;
      ++chars;
    }
    ++i;
  }
  if (i >= text.size())
    return std::string(text);
  // Cut one more character to make room for the ellipsis.
  std::size_t cut = i;
  do {
    --cut;
  } while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80);
  return std::string(text.substr(0, cut)) + "…";
}

std::string SvgText::num(double v) {
  if (!std::isfinite(v))
    return "0";
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e9)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else
    std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}
} // namespace npc::prof
