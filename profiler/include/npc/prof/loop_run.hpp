#pragma once
// A Python loop traced into one graph ran one compiled kernel per iteration: the line,
// how many iterations, which kernel ("line 19: 99 iterations, one compiled kernel").
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct LoopRun {
  static constexpr std::string_view kType = "loop";
  static constexpr std::array<std::string_view, 8> kFields{
      "summary", "graph_id", "function", "lineno", "text", "kernel", "iterations",
      "sizes_at_run_time"};
  std::string summary{}; // required
  std::int64_t graph_id = -1;
  std::string function{};
  std::int64_t lineno = 0;
  std::string text{};
  std::string kernel{};
  std::int64_t iterations = 0;
  bool sizes_at_run_time = false; // its kernel takes array sizes as arguments
  bool operator==(const LoopRun&) const = default;
};

void to_json(nlohmann::json& j, const LoopRun& v);
void from_json(const nlohmann::json& j, LoopRun& v);
} // namespace npc::prof
