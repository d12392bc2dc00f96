#include "npc/prof/recompile.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const Recompile& v) {
  j = nlohmann::json{{"function", v.function},
                     {"filename", v.filename},
                     {"lineno", v.lineno},
                     {"reason", v.reason},
                     {"graph_id", v.graph_id}};
  if (!v.reasons.empty())
    j["reasons"] = v.reasons;
}

void from_json(const nlohmann::json& j, Recompile& v) {
  constexpr std::string_view ctx = "recompile event";
  detail::expect_object(j, ctx);
  Recompile r;
  detail::optional(j, ctx, "function", r.function);
  detail::optional(j, ctx, "filename", r.filename);
  detail::optional(j, ctx, "lineno", r.lineno);
  detail::required(j, ctx, "reason", r.reason);
  detail::optional(j, ctx, "graph_id", r.graph_id);
  detail::optional(j, ctx, "reasons", r.reasons);
  v = std::move(r);
}
} // namespace npc::prof
