#include "npc/prof/transfer_summary.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const TransferSummary& v) {
  j = nlohmann::json{{"h2d_count", v.h2d_count}, {"h2d_bytes", v.h2d_bytes}, {"h2d_ms", v.h2d_ms},
                     {"d2h_count", v.d2h_count}, {"d2h_bytes", v.d2h_bytes}, {"d2h_ms", v.d2h_ms}};
}

void from_json(const nlohmann::json& j, TransferSummary& v) {
  constexpr std::string_view ctx = "transfer summary";
  detail::expect_object(j, ctx);
  TransferSummary r;
  detail::optional(j, ctx, "h2d_count", r.h2d_count);
  detail::optional(j, ctx, "h2d_bytes", r.h2d_bytes);
  detail::optional(j, ctx, "h2d_ms", r.h2d_ms);
  detail::optional(j, ctx, "d2h_count", r.d2h_count);
  detail::optional(j, ctx, "d2h_bytes", r.d2h_bytes);
  detail::optional(j, ctx, "d2h_ms", r.d2h_ms);
  v = std::move(r);
}
} // namespace npc::prof
