#include "npc/prof/source_location.hpp"

namespace npc::prof {
std::string source_location(const std::string& file, std::int64_t line) {
  if (file.empty())
    return line > 0 ? "line " + std::to_string(line) : "";
  return line > 0 ? file + ":" + std::to_string(line) : file;
}
} // namespace npc::prof
