#include "npc/prof/kernel_summary.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const KernelSummary& v) {
  j = nlohmann::json{{"name", v.name},     {"graph_id", v.graph_id}, {"target", v.target},
                     {"runs", v.runs},     {"total_ms", v.total_ms}, {"median_ms", v.median_ms},
                     {"min_ms", v.min_ms}, {"max_ms", v.max_ms},     {"bytes", v.bytes},
                     {"gbps", v.gbps},     {"source", v.source},     {"ptx", v.ptx},
                     {"ops", v.ops}};
}

void from_json(const nlohmann::json& j, KernelSummary& v) {
  constexpr std::string_view ctx = "kernel summary";
  detail::expect_object(j, ctx);
  KernelSummary r;
  detail::required(j, ctx, "name", r.name);
  detail::optional(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "target", r.target);
  detail::optional(j, ctx, "runs", r.runs);
  detail::optional(j, ctx, "total_ms", r.total_ms);
  detail::optional(j, ctx, "median_ms", r.median_ms);
  detail::optional(j, ctx, "min_ms", r.min_ms);
  detail::optional(j, ctx, "max_ms", r.max_ms);
  detail::optional(j, ctx, "bytes", r.bytes);
  detail::optional(j, ctx, "gbps", r.gbps);
  detail::optional(j, ctx, "source", r.source);
  detail::optional(j, ctx, "ptx", r.ptx);
  detail::optional(j, ctx, "ops", r.ops);
  v = std::move(r);
}
} // namespace npc::prof
