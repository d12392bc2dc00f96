#pragma once
// Checked field access for from_json: a missing or mistyped field becomes a SchemaError
// that names the event and the field, instead of nlohmann's generic type_error.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "npc/prof/schema_error.hpp"

namespace npc::prof::detail {
using nlohmann::json;

template <class T> struct is_vector : std::false_type {};
template <class T> struct is_vector<std::vector<T>> : std::true_type {};
template <class T> struct is_string_map : std::false_type {};
template <class T> struct is_string_map<std::map<std::string, T>> : std::true_type {};

[[noreturn]] void fail(std::string_view ctx, std::string_view key, std::string_view what);
std::string json_kind(const json& v);
void expect_object(const json& j, std::string_view ctx);
// A whole document (session or report): an object carrying this schema and version.
void expect_document(const json& j, std::string_view ctx);
void one_of(std::string_view ctx, std::string_view key, const std::string& value,
            std::initializer_list<std::string_view> allowed);

template <class T>
void read_value(const json& v, std::string_view ctx, const std::string& key, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean())
      fail(ctx, key, "must be a boolean, got " + json_kind(v));
    out = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer())
      fail(ctx, key, "must be an integer, got " + json_kind(v));
    if constexpr (std::is_unsigned_v<T>) {
      if (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)
        fail(ctx, key, "must not be negative");
    }
    out = v.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number())
      fail(ctx, key, "must be a number, got " + json_kind(v));
    out = v.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string())
      fail(ctx, key, "must be a string, got " + json_kind(v));
    out = v.get<std::string>();
  } else if constexpr (is_vector<T>::value) {
    if (!v.is_array())
      fail(ctx, key, "must be a list, got " + json_kind(v));
    out.clear();
    out.reserve(v.size());
    std::size_t i = 0;
    for (const auto& e : v) {
      typename T::value_type x{};
      read_value(e, ctx, key + "[" + std::to_string(i++) + "]", x);
      out.push_back(std::move(x));
    }
  } else if constexpr (is_string_map<T>::value) {
    if (!v.is_object())
      fail(ctx, key, "must be a dict, got " + json_kind(v));
    out.clear();
    for (auto it = v.begin(); it != v.end(); ++it) {
      typename T::mapped_type x{};
      read_value(it.value(), ctx, key + "." + it.key(), x);
      out.emplace(it.key(), std::move(x));
    }
  } else {
    if (!v.is_object())
      fail(ctx, key, "must be a dict, got " + json_kind(v));
    try {
      from_json(v, out);
    } catch (const SchemaError& e) {
      fail(ctx, key, std::string("is invalid: ") + e.what());
    }
  }
}

// Absent and null both count as missing: Python callers pass None for "not known".
template <class T> void required(const json& j, std::string_view ctx, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    fail(ctx, key, "is required but missing");
  read_value(*it, ctx, key, out);
}

template <class T> void optional(const json& j, std::string_view ctx, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null())
    return;
  read_value(*it, ctx, key, out);
}
} // namespace npc::prof::detail
