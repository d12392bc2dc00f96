#pragma once
// Report: the headline numbers.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace npc::prof {
struct ReportSummary {
  std::int64_t traces = 0;  // calls and cells, replayed calls included
  std::int64_t replays = 0; // calls that ran a compiled program without tracing
  std::int64_t graphs = 0; // distinct graph ids compiled or run
  std::int64_t compiles = 0;
  std::int64_t cache_hits = 0;    // compiles served from memory or disk
  std::int64_t graph_breaks = 0;  // occurrences
  std::int64_t unique_breaks = 0; // distinct (reason, file, line)
  std::int64_t recompiles = 0;
  std::int64_t kernels = 0;
  std::int64_t kernel_runs = 0;
  std::int64_t fallbacks = 0;
  double compile_ms = 0.0;
  double run_ms = 0.0;      // all kernel runs
  double eager_ms = 0.0;    // eager time for the same executions, 0 if not measured
  double compiled_ms = 0.0; // kernel time of the graphs with an eager timing
  double speedup = 0.0;     // eager_ms / compiled_ms, 0 if unknown
  std::int64_t transfer_bytes = 0;
  double transfer_ms = 0.0;
  bool operator==(const ReportSummary&) const = default;
};

void to_json(nlohmann::json& j, const ReportSummary& v);
void from_json(const nlohmann::json& j, ReportSummary& v);
} // namespace npc::prof
