#pragma once
// Small helpers for writing inline SVG by hand.
#include <string>
#include <string_view>

namespace npc::prof {
struct SvgText {
  // At most `max_chars` characters (UTF-8 aware), with "…" when cut.
  static std::string truncate(std::string_view text, std::size_t max_chars);
  // A coordinate: integers without decimals, others with one.
  static std::string num(double v);
};
} // namespace npc::prof
