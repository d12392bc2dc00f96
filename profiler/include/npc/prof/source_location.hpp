#pragma once
// "file:line" as every report view shows it: "line N" without a file, "file" without a line.
#include <cstdint>
#include <string>

namespace npc::prof {
std::string source_location(const std::string& file, std::int64_t line);
} // namespace npc::prof
