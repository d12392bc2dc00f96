#include "npc/prof/event.hpp"

#include <array>
#include <string>
#include <utility>

#include "npc/prof/json_fields.hpp"

namespace npc::prof {
namespace {
template <std::size_t... I> constexpr auto type_names(std::index_sequence<I...>) {
  return std::array<std::string_view, sizeof...(I)>{
      std::variant_alternative_t<I, EventData>::kType...};
}
constexpr auto kTypes = type_names(std::make_index_sequence<std::variant_size_v<EventData>>{});

std::string list_of(std::span<const std::string_view> names) {
  std::string s;
  for (auto n : names) {
    if (!s.empty())
      s += ", ";
    s += n;
  }
  return s;
}

// Parses the payload whose kType matches `type`; false if none does.
template <std::size_t I = 0>
bool parse_payload(std::string_view type, const nlohmann::json& j, EventData& out) {
  if constexpr (I == std::variant_size_v<EventData>) {
    return false;
  } else {
    using T = std::variant_alternative_t<I, EventData>;
    if (T::kType != type)
      return parse_payload<I + 1>(type, j, out);
    std::string ctx = std::string(T::kType) + " event";
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      if (k == "type" || k == "ts_us" || k == "tid" || k == "worker")
        continue;
      bool known = false;
      for (auto f : T::kFields)
        known = known || f == k;
      if (!known)
        throw SchemaError(ctx + ": unknown field '" + k + "' (fields: " + list_of(T::kFields) +
                          ")");
    }
    T payload;
    from_json(j, payload);
    out = std::move(payload);
    return true;
  }
}

template <std::size_t I = 0> std::span<const std::string_view> fields_of(std::string_view type) {
  if constexpr (I == std::variant_size_v<EventData>) {
    return {};
  } else {
    using T = std::variant_alternative_t<I, EventData>;
    if (T::kType == type)
      return T::kFields;
    return fields_of<I + 1>(type);
  }
}
} // namespace

std::string_view Event::type() const {
  return std::visit([](const auto& p) { return std::decay_t<decltype(p)>::kType; }, data);
}

std::span<const std::string_view> event_types() { return kTypes; }

bool is_event_type(std::string_view type) {
  for (auto t : kTypes)
    if (t == type)
      return true;
  return false;
}

std::span<const std::string_view> event_fields(std::string_view type) { return fields_of(type); }

void to_json(nlohmann::json& j, const Event& e) {
  std::visit([&](const auto& p) { j = p; }, e.data);
  j["type"] = e.type();
  j["ts_us"] = e.ts_us;
  j["tid"] = e.tid;
  if (!e.worker.empty())
    j["worker"] = e.worker;
}

void from_json(const nlohmann::json& j, Event& e) {
  detail::expect_object(j, "event");
  auto t = j.find("type");
  if (t == j.end() || !t->is_string())
    throw SchemaError(
        "event: field 'type' is required and must be a string (one of: " + list_of(kTypes) + ")");
  const auto type = t->get<std::string>();
  Event r;
  if (!parse_payload(type, j, r.data))
    throw SchemaError("unknown event type '" + type + "' (known types: " + list_of(kTypes) + ")");
  detail::optional(j, type + " event", "ts_us", r.ts_us);
  detail::optional(j, type + " event", "tid", r.tid);
  detail::optional(j, type + " event", "worker", r.worker);
  e = std::move(r);
}
} // namespace npc::prof
