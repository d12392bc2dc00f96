#pragma once
// The exact source that was compiled for one kernel.
#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "npc/prof/source_op.hpp"

namespace npc::prof {
struct KernelSource {
  static constexpr std::string_view kType = "kernel_source";
  static constexpr std::array<std::string_view, 6> kFields{"name",   "graph_id", "target",
                                                           "source", "ptx",      "ops"};
  std::string name{}; // required
  std::int64_t graph_id = -1;
  std::string target = "cpu";
  std::string source{}; // required; C++ (cpu) or CUDA C (cuda)
  std::string ptx{};    // may be empty
  std::vector<SourceOp> ops{};
  bool operator==(const KernelSource&) const = default;
};

void to_json(nlohmann::json& j, const KernelSource& v);
void from_json(const nlohmann::json& j, KernelSource& v);
} // namespace npc::prof
