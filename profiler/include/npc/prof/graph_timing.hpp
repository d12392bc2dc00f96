#pragma once
// Report: one graph compiled vs eager, per execution.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace npc::prof {
struct GraphTiming {
  std::int64_t graph_id = -1; // required
  std::int64_t runs = 0;      // executions seen (the most runs of any of its kernels)
  double compiled_ms = 0.0;   // kernel time per execution
  double eager_ms = 0.0;      // eager time per execution, 0 if not measured
  std::int64_t eager_runs = 0; // the eager executions timed for it
  double speedup = 0.0;       // eager_ms / compiled_ms, 0 if unknown
  bool operator==(const GraphTiming&) const = default;
};

void to_json(nlohmann::json& j, const GraphTiming& v);
void from_json(const nlohmann::json& j, GraphTiming& v);
} // namespace npc::prof
