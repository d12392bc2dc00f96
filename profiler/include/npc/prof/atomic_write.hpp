#pragma once
// Writes a whole file or nothing: a temporary beside the target, then rename(2).
#include <filesystem>
#include <string_view>

namespace npc::prof {
// Throws std::runtime_error with the path and the OS error on failure.
void atomic_write(const std::filesystem::path& path, std::string_view contents);
} // namespace npc::prof
