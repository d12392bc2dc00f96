#include "npc/prof/transfer.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const Transfer& v) {
  j = nlohmann::json{{"direction", v.direction}, {"bytes", v.bytes}, {"ms", v.ms}};
}

void from_json(const nlohmann::json& j, Transfer& v) {
  constexpr std::string_view ctx = "transfer event";
  detail::expect_object(j, ctx);
  Transfer r;
  detail::required(j, ctx, "direction", r.direction);
  detail::required(j, ctx, "bytes", r.bytes);
  detail::optional(j, ctx, "ms", r.ms);
  detail::one_of(ctx, "direction", r.direction, {"h2d", "d2h"});
  v = std::move(r);
}
} // namespace npc::prof
