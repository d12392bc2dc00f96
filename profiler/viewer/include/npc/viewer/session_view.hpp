#pragma once
// What the viewer shows of one session file: the profiler's Report (the same model as the
// notebook report) plus what drawing needs precomputed: the summary line, each kernel's
// source cut into coloured lines, the timing chart, each recompile's guard diffs.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "npc/prof/report.hpp"
#include "npc/prof/timeline.hpp"
#include "npc/prof/timing_chart.hpp"
#include "npc/viewer/guard_diff.hpp"
#include "npc/viewer/highlighted_code.hpp"

namespace npc::viewer {
struct SessionView {
  std::filesystem::path file{};
  std::string kind{};         // "session", "report" (a saved report) or "chrome trace"
  int pid = 0;                // of the process that wrote a session
  std::int64_t start_unix_us = 0;
  std::size_t events = 0;
  prof::Report report{};
  std::string summary{};                           // prof::summary_line
  std::vector<HighlightedCode> sources{};          // parallel to report.kernels
  prof::TimingChart timing{};                      // rows index report.kernels
  std::vector<std::vector<GuardDiff>> guards{};    // parallel to report.recompiles
  prof::Timeline timeline{};                       // a session's events (none in a report)

  // A session or report document (schema "npcompile.profile"), or a Chrome trace (its
  // timeline alone); throws prof::SchemaError (std::invalid_argument) when it is none.
  static SessionView from_json(const nlohmann::json& doc, std::filesystem::path file = {});
  // Reads and parses; throws std::runtime_error when unreadable, SchemaError when invalid.
  static SessionView load(const std::filesystem::path& file);
};
} // namespace npc::viewer
