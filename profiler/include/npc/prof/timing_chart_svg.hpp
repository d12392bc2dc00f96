#pragma once
// Kernel timings as an inline SVG bar chart: one bar per kernel (total time of its runs),
// with runs and median beside it (the bars of TimingChart). Colours are presentation attributes.
#include <string>
#include <vector>

#include "npc/prof/kernel_summary.hpp"

namespace npc::prof {
class TimingChartSvg {
public:
  // Kernels without runs are skipped; empty string if none ran.
  static std::string render(const std::vector<KernelSummary>& kernels);
};
} // namespace npc::prof
