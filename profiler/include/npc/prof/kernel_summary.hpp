#pragma once
// Report: one kernel (by name): its source and its timings aggregated.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "npc/prof/source_op.hpp"

namespace npc::prof {
struct KernelSummary {
  std::string name{}; // required
  std::int64_t graph_id = -1;
  std::string target = "cpu";
  std::int64_t runs = 0;
  double total_ms = 0.0;
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  std::int64_t bytes = 0; // bytes moved, all runs
  double gbps = 0.0;      // bytes / time, 0 if unknown
  std::string source{};
  std::string ptx{};
  std::vector<SourceOp> ops{};
  bool operator==(const KernelSummary&) const = default;
};

void to_json(nlohmann::json& j, const KernelSummary& v);
void from_json(const nlohmann::json& j, KernelSummary& v);
} // namespace npc::prof
