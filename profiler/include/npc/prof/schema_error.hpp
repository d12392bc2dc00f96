#pragma once
// A bad event or document: unknown type, missing or mistyped field. It derives from
// std::invalid_argument so pybind11 turns it into ValueError for Python callers.
#include <stdexcept>

namespace npc::prof {
class SchemaError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};
} // namespace npc::prof
