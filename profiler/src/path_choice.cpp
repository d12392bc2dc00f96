#include "npc/prof/path_choice.hpp"

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
void to_json(nlohmann::json& j, const PathChoice& v) {
  j = nlohmann::json{{"function", v.function},       {"choice", v.choice},
                     {"compiled_ms", v.compiled_ms}, {"numpy_ms", v.numpy_ms},
                     {"reason", v.reason}};
  if (v.loops_ms > 0.0)
    j["loops_ms"] = v.loops_ms;
  if (v.host_ms > 0.0)
    j["host_ms"] = v.host_ms;
  if (v.budget)
    j["budget"] = true;
  if (v.retry)
    j["retry"] = true;
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
  detail::optional(j, ctx, "loops_ms", r.loops_ms);
  detail::optional(j, ctx, "host_ms", r.host_ms);
  detail::optional(j, ctx, "budget", r.budget);
  detail::optional(j, ctx, "retry", r.retry);
  v = std::move(r);
}
std::string path_label(const std::string& choice) {
  if (choice == "numpy")
    return "plain NumPy";
  if (choice == "loops")
    return "its loops compiled";
  if (choice == "host")
    return "compiled on the host";
  return choice;
}
bool any_loops_path(const std::vector<PathChoice>& choices) {
  for (const auto& c : choices)
    if (c.loops_ms > 0.0)
      return true;
  return false;
}
bool any_host_path(const std::vector<PathChoice>& choices) {
  for (const auto& c : choices)
    if (c.host_ms > 0.0)
      return true;
  return false;
}
} // namespace npc::prof
