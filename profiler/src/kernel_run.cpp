#include "npc/prof/kernel_run.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const KernelRun& v) {
  j = nlohmann::json{{"name", v.name},
                     {"graph_id", v.graph_id},
                     {"target", v.target},
                     {"wall_ms", v.wall_ms},
                     {"bytes", v.bytes},
                     {"function", v.function}};
}

void from_json(const nlohmann::json& j, KernelRun& v) {
  constexpr std::string_view ctx = "kernel_run event";
  detail::expect_object(j, ctx);
  KernelRun r;
  detail::required(j, ctx, "name", r.name);
  detail::optional(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "target", r.target);
  detail::required(j, ctx, "wall_ms", r.wall_ms);
  detail::optional(j, ctx, "bytes", r.bytes);
  detail::optional(j, ctx, "function", r.function);
  detail::one_of(ctx, "target", r.target, {"cpu", "cuda", "reference"});
  v = std::move(r);
}
} // namespace npc::prof
