#pragma once
// NumPy's broadcasting rule on shapes, without NumPy: the traced op's result shape.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace npc::trace {

using Shape = std::vector<std::int64_t>;

// The broadcast shape of `shapes`, or nothing when NumPy would raise.
std::optional<Shape> broadcast(std::span<const Shape> shapes);

} // namespace npc::trace
