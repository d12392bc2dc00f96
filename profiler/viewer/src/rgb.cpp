#include "npc/viewer/rgb.hpp"

#include <stdexcept>
#include <string>

namespace npc::viewer {
namespace {
int nibble(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}
} // namespace

Rgb Rgb::from_hex(std::string_view hex) {
  if (!hex.empty() && hex.front() == '#')
    hex.remove_prefix(1);
  std::uint8_t v[3] = {};
  for (int i = 0; i < 3 && hex.size() == 6; ++i) {
    const int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      break;
    v[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    if (i == 2)
      return {v[0], v[1], v[2]};
  }
  throw std::invalid_argument("not a #rrggbb colour: '" + std::string(hex) + "'");
}
} // namespace npc::viewer
