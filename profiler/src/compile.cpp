#include "npc/prof/compile.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const CompileUnit& v) {
  j = nlohmann::json{{"thread", v.thread}, {"start_ms", v.start_ms}, {"phases", v.phases}};
}

void from_json(const nlohmann::json& j, CompileUnit& v) {
  constexpr std::string_view ctx = "compile unit";
  detail::expect_object(j, ctx);
  CompileUnit r;
  detail::optional(j, ctx, "thread", r.thread);
  detail::optional(j, ctx, "start_ms", r.start_ms);
  detail::optional(j, ctx, "phases", r.phases);
  v = std::move(r);
}

void to_json(nlohmann::json& j, const Compile& v) {
  j = nlohmann::json{{"graph_id", v.graph_id}, {"function", v.function}, {"target", v.target},
                     {"kernels", v.kernels},   {"phases", v.phases},     {"total_ms", v.total_ms},
                     {"cache", v.cache},       {"ops", v.ops}};
  if (!v.units.empty())
    j["units"] = v.units;
}

void from_json(const nlohmann::json& j, Compile& v) {
  constexpr std::string_view ctx = "compile event";
  detail::expect_object(j, ctx);
  Compile r;
  detail::required(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "function", r.function);
  detail::optional(j, ctx, "target", r.target);
  detail::optional(j, ctx, "kernels", r.kernels);
  detail::optional(j, ctx, "phases", r.phases);
  detail::optional(j, ctx, "total_ms", r.total_ms);
  detail::optional(j, ctx, "cache", r.cache);
  detail::optional(j, ctx, "units", r.units);
  detail::optional(j, ctx, "ops", r.ops);
  detail::one_of(ctx, "target", r.target, {"cpu", "cuda", "reference"});
  detail::one_of(ctx, "cache", r.cache, {"miss", "memory", "disk"});
  if (j.find("total_ms") == j.end() || j.at("total_ms").is_null()) {
    r.total_ms = 0.0;
    for (const auto& [name, ms] : r.phases)
      r.total_ms += ms;
  }
  v = std::move(r);
}
} // namespace npc::prof
