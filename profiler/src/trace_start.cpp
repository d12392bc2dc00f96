#include "npc/prof/trace_start.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const TraceStart& v) {
  j = nlohmann::json{{"function", v.function}, {"filename", v.filename}, {"lineno", v.lineno}};
  if (v.replay)
    j["replay"] = true;
  if (v.ms > 0)
    j["ms"] = v.ms;
}

void from_json(const nlohmann::json& j, TraceStart& v) {
  constexpr std::string_view ctx = "trace_start event";
  detail::expect_object(j, ctx);
  TraceStart r;
  detail::required(j, ctx, "function", r.function);
  detail::optional(j, ctx, "filename", r.filename);
  detail::optional(j, ctx, "lineno", r.lineno);
  detail::optional(j, ctx, "replay", r.replay);
  detail::optional(j, ctx, "ms", r.ms);
  if (r.ms < 0)
    detail::fail(ctx, "ms", "must not be negative");
  v = std::move(r);
}
} // namespace npc::prof
