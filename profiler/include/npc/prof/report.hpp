#pragma once
// The report model: what a notebook report, the console text and the JSON MIME bundle show.
// Built from a session (or from its last N traces); it round-trips through JSON so Python
// can hold it as a dict and hand it back for rendering.
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "npc/prof/break_summary.hpp"
#include "npc/prof/compile.hpp"
#include "npc/prof/event.hpp"
#include "npc/prof/fallback.hpp"
#include "npc/prof/fusion_graph.hpp"
#include "npc/prof/graph_timing.hpp"
#include "npc/prof/kernel_summary.hpp"
#include "npc/prof/recompile.hpp"
#include "npc/prof/report_summary.hpp"
#include "npc/prof/trace_end.hpp"
#include "npc/prof/transfer_summary.hpp"

namespace npc::prof {
class Session;

struct Report {
  ReportSummary summary;
  std::vector<TraceEnd> traces{};       // finished traces, in order
  std::vector<BreakSummary> breaks{};   // deduplicated, most frequent first
  std::vector<Recompile> recompiles{};  // in order
  std::vector<Compile> compiles{};      // in order
  std::vector<KernelSummary> kernels{}; // by total time, slowest first
  std::vector<FusionGraph> graphs{};    // latest picture of each graph, by graph id
  std::vector<GraphTiming> graph_timings{};
  std::vector<Fallback> fallbacks{};
  std::vector<LoopRun> loops{};             // loops that ran one compiled kernel per step
  std::vector<PathChoice> path_choices{};   // compiled or plain NumPy, in order
  TransferSummary transfers;
  bool operator==(const Report&) const = default;

  // The events from the start of the last `last_n_traces` traces (all events when empty or
  // when there are fewer traces). Kernel sources and fusion pictures of the graphs that ran
  // in that window are looked up in all of `events`: a cache hit does not emit them again.
  // Throws std::invalid_argument if last_n_traces is negative.
  static Report from_events(const std::vector<Event>& events,
                            std::optional<int> last_n_traces = std::nullopt);
  static Report from_session(const Session& session,
                             std::optional<int> last_n_traces = std::nullopt);
};

// {"schema", "version", "kind": "report", "summary", "traces", "breaks", ...}
void to_json(nlohmann::json& j, const Report& r);
void from_json(const nlohmann::json& j, Report& r);
} // namespace npc::prof
