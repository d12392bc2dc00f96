#pragma once
// A recompile's reason ("x: dtype float64 -> float32; y: shape[0] 10 -> 20, now dynamic")
// as separate guard failures with their before and after values, to show side by side.
#include <string>
#include <string_view>
#include <vector>

namespace npc::viewer {
struct GuardDiff {
  std::string what{};   // "x: dtype"; the whole text when it has no "a -> b"
  std::string before{}; // "float64"
  std::string after{};  // "float32"
  bool operator==(const GuardDiff&) const = default;
};

std::vector<GuardDiff> guard_diffs(std::string_view reason);
} // namespace npc::viewer
