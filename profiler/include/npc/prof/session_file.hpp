#pragma once
// The per-session file: the whole session as one JSON document,
// <dir>/npcompile-<pid>-<start time, UTC, YYYYmmddTHHMMSSZ>.json, written atomically
// (temporary file + rename), so a reader never sees half of it. Rewriting it later
// replaces it with the newer, longer stream.
#include <filesystem>

#include "npc/prof/session.hpp"

namespace npc::prof {
std::filesystem::path session_file_name(const Session& session);
// Creates `dir` if needed; returns the path written. Throws std::runtime_error on I/O errors.
std::filesystem::path write_session_file(const Session& session, const std::filesystem::path& dir);
} // namespace npc::prof
