#include "npc/prof/path_choice.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const PathChoice& v) {
  j = nlohmann::json{{"function", v.function},       {"choice", v.choice},
                     {"compiled_ms", v.compiled_ms}, {"numpy_ms", v.numpy_ms},
                     {"reason", v.reason}};
}

void from_json(const nlohmann::json& j, PathChoice& v) {
  constexpr std::string_view ctx = "path_choice event";
  detail::expect_object(j, ctx);
  PathChoice r;
  detail::required(j, ctx, "function", r.function);
  detail::required(j, ctx, "choice", r.choice);
  detail::optional(j, ctx, "compiled_ms", r.compiled_ms);
  detail::optional(j, ctx, "numpy_ms", r.numpy_ms);
  detail::optional(j, ctx, "reason", r.reason);
  v = std::move(r);
}
std::string path_label(const std::string& choice) {
  if (choice == "numpy")
    return "plain NumPy";
  if (choice == "loops")
    return "its loops compiled";
  return choice;
}
} // namespace npc::prof
