#include "npc/prof/kernel_source.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const KernelSource& v) {
  j = nlohmann::json{{"name", v.name},     {"graph_id", v.graph_id}, {"target", v.target},
                     {"source", v.source}, {"ptx", v.ptx},           {"ops", v.ops}};
}

void from_json(const nlohmann::json& j, KernelSource& v) {
  constexpr std::string_view ctx = "kernel_source event";
  detail::expect_object(j, ctx);
  KernelSource r;
  detail::required(j, ctx, "name", r.name);
  detail::optional(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "target", r.target);
  detail::required(j, ctx, "source", r.source);
  detail::optional(j, ctx, "ptx", r.ptx);
  detail::optional(j, ctx, "ops", r.ops);
  detail::one_of(ctx, "target", r.target, {"cpu", "cuda", "reference"});
  v = std::move(r);
}
} // namespace npc::prof
