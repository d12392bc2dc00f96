#include "npc/prof/summary_line.hpp"

#include "npc/prof/units.hpp"

namespace npc::prof {
namespace {
std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
} // namespace

std::string summary_line(const ReportSummary& s) {
  std::string o = "npcompile report: " + plural(s.graphs, "graph", "graphs") + ", " +
                  plural(s.graph_breaks, "graph break", "graph breaks");
  if (s.unique_breaks != s.graph_breaks)
    o += " (" + plural(s.unique_breaks, "place", "places") + ")";
  o += ", " + plural(s.recompiles, "recompile", "recompiles") + ", " +
       plural(s.kernels, "kernel", "kernels") + " (" + plural(s.kernel_runs, "run", "runs") + ")\n";
  o += "compile " + Units::ms(s.compile_ms);
  if (s.cache_hits)
    o += " (" + std::to_string(s.cache_hits) + " cached)";
  o += " · kernels " + Units::ms(s.run_ms);
  // Only where an eager run was timed: a speedup is a measurement, never an estimate.
  if (s.speedup > 0)
    o += " · " + Units::speedup(s.speedup) + " speedup over eager NumPy (" +
         Units::ms(s.eager_ms) + " eager vs " + Units::ms(s.compiled_ms) + " compiled)";
  if (s.fallbacks)
    o += " · " + plural(s.fallbacks, "fallback", "fallbacks");
  if (s.replays)
    o += " · " + plural(s.replays, "call", "calls") + " replayed without tracing";
  return o;
}
} // namespace npc::prof
