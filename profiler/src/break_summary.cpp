#include "npc/prof/break_summary.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const BreakSummary& v) {
  j = nlohmann::json{{"reason", v.reason}, {"filename", v.filename}, {"lineno", v.lineno},
                     {"hint", v.hint},     {"function", v.function}, {"code", v.code},
                     {"count", v.count}};
}

void from_json(const nlohmann::json& j, BreakSummary& v) {
  constexpr std::string_view ctx = "break summary";
  detail::expect_object(j, ctx);
  BreakSummary r;
  detail::required(j, ctx, "reason", r.reason);
  detail::optional(j, ctx, "filename", r.filename);
  detail::optional(j, ctx, "lineno", r.lineno);
  detail::optional(j, ctx, "hint", r.hint);
  detail::optional(j, ctx, "function", r.function);
  detail::optional(j, ctx, "code", r.code);
  detail::optional(j, ctx, "count", r.count);
  v = std::move(r);
}
} // namespace npc::prof
