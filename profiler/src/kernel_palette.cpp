#include "npc/prof/kernel_palette.hpp"

#include <array>
#include <string_view>

namespace npc::prof {
namespace {
// Tableau 10: distinguishable, and dark enough for text on white.
constexpr std::array<std::string_view, 10> kStroke{"#4e79a7", "#e8762b", "#59a14f", "#e15759",
                                                   "#b07aa1", "#3f9b95", "#c9a800", "#d4708a",
                                                   "#9c755f", "#6b6ecf"};
constexpr std::array<std::string_view, 10> kFill{"#e4ecf5", "#fcebdd", "#e2f0e0", "#fbe3e3",
                                                 "#f1e7ef", "#dff0ee", "#f8f1cc", "#f8e6eb",
                                                 "#efe7e2", "#e6e6f7"};
std::size_t slot(std::int64_t k) { return static_cast<std::size_t>(k) % kStroke.size(); }
} // namespace

std::string KernelPalette::stroke(std::int64_t k) {
  return k < 0 ? "#8c959f" : std::string(kStroke[slot(k)]);
}
std::string KernelPalette::target(const std::string& target) {
  if (target == "cuda")
    return "#3f8f3a";
  if (target == "reference")
    return "#8c959f";
  return "#4e79a7";
}

std::string KernelPalette::fill(std::int64_t k) {
  return k < 0 ? "#f3f4f6" : std::string(kFill[slot(k)]);
}
} // namespace npc::prof
