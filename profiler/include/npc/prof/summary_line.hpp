#pragma once
// The report's headline in words, shared by the text report and the desktop viewer:
// "npcompile report: 2 graphs, 1 graph break, ...\ncompile 12.0 ms · kernels 0.31 ms ·
// 3.9× speedup over eager NumPy (...)". Two lines, no trailing newline.
#include <string>

#include "npc/prof/report_summary.hpp"

namespace npc::prof {
std::string summary_line(const ReportSummary& summary);
} // namespace npc::prof
