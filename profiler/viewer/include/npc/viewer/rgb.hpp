#pragma once
// A colour of the report's palette ("#4e79a7") as numbers, for the viewer's draw calls.
#include <cstdint>
#include <string_view>

namespace npc::viewer {
struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb&) const = default;
  // "#rrggbb" (the '#' optional); throws std::invalid_argument on anything else.
  static Rgb from_hex(std::string_view hex);
};
} // namespace npc::viewer
