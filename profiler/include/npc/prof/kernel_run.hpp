#pragma once
// One launch of a compiled kernel; ts_us is when it finished.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace npc::prof {
struct KernelRun {
  static constexpr std::string_view kType = "kernel_run";
  static constexpr std::array<std::string_view, 6> kFields{"name",    "graph_id", "target",
                                                           "wall_ms", "bytes",    "function"};
  std::string name{}; // required
  std::int64_t graph_id = -1;
  std::string target = "cpu";
  double wall_ms = 0.0;   // required
  std::int64_t bytes = 0; // bytes moved, for GB/s
  std::string function{}; // the traced function or cell that ran it
  bool operator==(const KernelRun&) const = default;
};

void to_json(nlohmann::json& j, const KernelRun& v);
void from_json(const nlohmann::json& j, KernelRun& v);
} // namespace npc::prof
