#include "Broadcast.hpp"

#include <algorithm>

namespace npc::trace {

std::optional<Shape> broadcast(std::span<const Shape> shapes) {
  std::size_t ndim = 0;
  for (const Shape& s : shapes) {
    ndim = std::max(ndim, s.size());
  }
  Shape out(ndim, 1);
  for (const Shape& s : shapes) {
    const std::size_t off = ndim - s.size();  // shapes align on their last axis
    for (std::size_t i = 0; i < s.size(); ++i) {
      std::int64_t& o = out[off + i];
      const std::int64_t d = s[i];
      if (d == 1) {
        continue;
      }
      if (o == 1) {
        o = d;
      } else if (o != d) {
        return std::nullopt;
      }
    }
  }
  return out;
}

} // namespace npc::trace
