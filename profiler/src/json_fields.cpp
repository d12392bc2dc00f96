#include "npc/prof/json_fields.hpp"

#include "npc/prof/schema.hpp"
#include "npc/prof/schema_error.hpp"

namespace npc::prof::detail {
void fail(std::string_view ctx, std::string_view key, std::string_view what) {
  std::string msg(ctx);
  msg += ": field '";
  msg += key;
  msg += "' ";
  msg += what;
  throw SchemaError(msg);
}

std::string json_kind(const json& v) {
  switch (v.type()) {
  case json::value_t::null:
    return "None";
  case json::value_t::boolean:
    return "bool";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "int";
  case json::value_t::number_float:
    return "float";
  case json::value_t::string:
    return "str";
  case json::value_t::array:
    return "list";
  case json::value_t::object:
    return "dict";
  default:
    return "an unsupported value";
  }
}

void expect_document(const json& j, std::string_view ctx) {
  expect_object(j, ctx);
  std::string schema;
  int version = 0;
  required(j, ctx, "schema", schema);
  required(j, ctx, "version", version);
  if (schema != kSchemaName || version != kSchemaVersion)
    throw SchemaError(std::string(ctx) + ": expected schema " + std::string(kSchemaName) +
                      " version " + std::to_string(kSchemaVersion) + ", got " + schema +
                      " version " + std::to_string(version));
}

void expect_object(const json& j, std::string_view ctx) {
  if (!j.is_object())
    throw SchemaError(std::string(ctx) + ": expected a dict, got " + json_kind(j));
}

void one_of(std::string_view ctx, std::string_view key, const std::string& value,
            std::initializer_list<std::string_view> allowed) {
  std::string list;
  for (auto a : allowed) {
    if (a == value)
      return;
    if (!list.empty())
      list += ", ";
    list += '"';
    list += a;
    list += '"';
  }
  fail(ctx, key, "must be one of " + list + ", got \"" + value + "\"");
}
} // namespace npc::prof::detail
