#include "npc/prof/report_summary.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const ReportSummary& v) {
  j = nlohmann::json{{"traces", v.traces},
                     {"replays", v.replays},
                     {"graphs", v.graphs},
                     {"compiles", v.compiles},
                     {"cache_hits", v.cache_hits},
                     {"graph_breaks", v.graph_breaks},
                     {"unique_breaks", v.unique_breaks},
                     {"recompiles", v.recompiles},
                     {"kernels", v.kernels},
                     {"kernel_runs", v.kernel_runs},
                     {"fallbacks", v.fallbacks},
                     {"compile_ms", v.compile_ms},
                     {"run_ms", v.run_ms},
                     {"eager_ms", v.eager_ms},
                     {"compiled_ms", v.compiled_ms},
                     {"speedup", v.speedup},
                     {"transfer_bytes", v.transfer_bytes},
                     {"transfer_ms", v.transfer_ms}};
}

void from_json(const nlohmann::json& j, ReportSummary& v) {
  constexpr std::string_view ctx = "report summary";
  detail::expect_object(j, ctx);
  ReportSummary r;
  detail::optional(j, ctx, "traces", r.traces);
  detail::optional(j, ctx, "replays", r.replays);
  detail::optional(j, ctx, "graphs", r.graphs);
  detail::optional(j, ctx, "compiles", r.compiles);
  detail::optional(j, ctx, "cache_hits", r.cache_hits);
  detail::optional(j, ctx, "graph_breaks", r.graph_breaks);
  detail::optional(j, ctx, "unique_breaks", r.unique_breaks);
  detail::optional(j, ctx, "recompiles", r.recompiles);
  detail::optional(j, ctx, "kernels", r.kernels);
  detail::optional(j, ctx, "kernel_runs", r.kernel_runs);
  detail::optional(j, ctx, "fallbacks", r.fallbacks);
  detail::optional(j, ctx, "compile_ms", r.compile_ms);
  detail::optional(j, ctx, "run_ms", r.run_ms);
  detail::optional(j, ctx, "eager_ms", r.eager_ms);
  detail::optional(j, ctx, "compiled_ms", r.compiled_ms);
  detail::optional(j, ctx, "speedup", r.speedup);
  detail::optional(j, ctx, "transfer_bytes", r.transfer_bytes);
  detail::optional(j, ctx, "transfer_ms", r.transfer_ms);
  v = std::move(r);
}
} // namespace npc::prof
