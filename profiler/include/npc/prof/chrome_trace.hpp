#pragma once
// Exporter: the Chrome trace event format (JSON object form), which Perfetto and
// chrome://tracing open. Compiles, kernel runs, transfers and traces are complete events
// ("ph":"X"); graph breaks, recompiles and fallbacks are instant events ("ph":"i").
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "npc/prof/session.hpp"

namespace npc::prof {
nlohmann::json chrome_trace(const Session& session);
std::string chrome_trace_json(const Session& session);
// Written to a temporary file beside `path`, then renamed over it.
void write_chrome_trace(const Session& session, const std::filesystem::path& path);
} // namespace npc::prof
