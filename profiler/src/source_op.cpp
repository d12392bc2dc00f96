#include "npc/prof/source_op.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const SourceOp& v) {
  j = nlohmann::json{{"op", v.op}, {"lineno", v.lineno}, {"text", v.text}};
}

void from_json(const nlohmann::json& j, SourceOp& v) {
  constexpr std::string_view ctx = "source op";
  detail::expect_object(j, ctx);
  SourceOp r;
  detail::required(j, ctx, "op", r.op);
  detail::optional(j, ctx, "lineno", r.lineno);
  detail::optional(j, ctx, "text", r.text);
  v = std::move(r);
}
} // namespace npc::prof
