#include "npc/prof/trace_end.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const TraceEnd& v) {
  j = nlohmann::json{{"function", v.function}, {"graphs", v.graphs}, {"breaks", v.breaks}};
}

void from_json(const nlohmann::json& j, TraceEnd& v) {
  constexpr std::string_view ctx = "trace_end event";
  detail::expect_object(j, ctx);
  TraceEnd r;
  detail::required(j, ctx, "function", r.function);
  detail::optional(j, ctx, "graphs", r.graphs);
  detail::optional(j, ctx, "breaks", r.breaks);
  v = std::move(r);
}
} // namespace npc::prof
