#pragma once
// The per-session file: the whole session as one JSON document,
// <dir>/npcompile-<pid>-<start time, UTC, YYYYmmddTHHMMSSZ>.json, written atomically
// (temporary file + rename), so a reader never sees half of it. Rewriting it later
// replaces it with the newer, longer stream.
#include <filesystem>
#include <string>

#include "npc/prof/session.hpp"

namespace npc::prof {
std::filesystem::path session_file_name(const Session& session);
// Creates `dir` if needed; returns the path written. Throws std::runtime_error on I/O errors.
std::filesystem::path write_session_file(const Session& session, const std::filesystem::path& dir);
// The same under a name of the caller's: the kernel keeps one file per kernel,
// npcompile-session-<kernel id>.json, in Jupyter's runtime folder. `file_name` must be a
// plain file name (no folder part); std::invalid_argument otherwise.
std::filesystem::path write_session_file(const Session& session, const std::filesystem::path& dir,
                                         const std::string& file_name);
} // namespace npc::prof
