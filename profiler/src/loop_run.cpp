#include "npc/prof/loop_run.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const LoopRun& v) {
  j = nlohmann::json{{"summary", v.summary}, {"graph_id", v.graph_id}, {"function", v.function},
                     {"lineno", v.lineno},   {"text", v.text},         {"kernel", v.kernel},
                     {"iterations", v.iterations}, {"sizes_at_run_time", v.sizes_at_run_time}};
}

void from_json(const nlohmann::json& j, LoopRun& v) {
  constexpr std::string_view ctx = "loop event";
  detail::expect_object(j, ctx);
  LoopRun r;
  detail::required(j, ctx, "summary", r.summary);
  detail::optional(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "function", r.function);
  detail::optional(j, ctx, "lineno", r.lineno);
  detail::optional(j, ctx, "text", r.text);
  detail::optional(j, ctx, "kernel", r.kernel);
  detail::optional(j, ctx, "iterations", r.iterations);
  detail::optional(j, ctx, "sizes_at_run_time", r.sizes_at_run_time);
  v = std::move(r);
}
} // namespace npc::prof
