#include "CompileError.hpp"

namespace npc {

CompileError::CompileError(const std::string& summary, std::string diagnostics)
    : std::runtime_error(diagnostics.empty() ? summary : summary + "\n" + diagnostics),
      diagnostics_(std::move(diagnostics)) {}

} // namespace npc
