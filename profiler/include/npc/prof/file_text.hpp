#pragma once
// A whole file read as text (a session, an attach file, a connection file).
#include <filesystem>
#include <string>

namespace npc::prof {
// Throws std::runtime_error("cannot read <path>") when it cannot be opened.
std::string read_file_text(const std::filesystem::path& path);
} // namespace npc::prof
