#pragma once
// Colours of kernels in the fused-graph picture and the timing chart: kernel i gets
// stroke(i) and fill(i); -1 (not in a kernel) is grey. Timing bars are coloured by target.
#include <cstdint>
#include <string>

namespace npc::prof {
struct KernelPalette {
  static std::string stroke(std::int64_t kernel);
  static std::string fill(std::int64_t kernel); // a light tint of stroke(), for box fills
  static std::string target(const std::string& target); // "cpu", "cuda", "reference"
};
} // namespace npc::prof
