#include "npc/prof/graph_break.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const GraphBreak& v) {
  j = nlohmann::json{{"reason", v.reason}, {"filename", v.filename}, {"lineno", v.lineno},
                     {"hint", v.hint},     {"function", v.function}, {"code", v.code},
                     {"kind", v.kind},     {"site", v.site}};
}

void from_json(const nlohmann::json& j, GraphBreak& v) {
  constexpr std::string_view ctx = "graph_break event";
  detail::expect_object(j, ctx);
  GraphBreak r;
  detail::required(j, ctx, "reason", r.reason);
  detail::optional(j, ctx, "filename", r.filename);
  detail::optional(j, ctx, "lineno", r.lineno);
  detail::optional(j, ctx, "hint", r.hint);
  detail::optional(j, ctx, "function", r.function);
  detail::optional(j, ctx, "code", r.code);
  detail::optional(j, ctx, "kind", r.kind);
  detail::optional(j, ctx, "site", r.site);
  v = std::move(r);
}
} // namespace npc::prof
