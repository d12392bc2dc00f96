#pragma once
#include <stdexcept>
#include <string>

namespace npc {

// A failed compile: what() is a one-line summary followed by the diagnostics.
class CompileError : public std::runtime_error {
public:
  CompileError(const std::string& summary, std::string diagnostics);
  const std::string& diagnostics() const { return diagnostics_; }

private:
  std::string diagnostics_;
};

} // namespace npc
