#pragma once
// Kernel timings as an inline SVG bar chart: one bar per kernel (total time of its runs),
// with runs and median beside it. Colours are presentation attributes.
#include <string>
#include <vector>

#include "npc/prof/kernel_summary.hpp"

namespace npc::prof {
class TimingChartSvg {
public:
  static constexpr std::size_t kMaxBars = 40;
  // Kernels without runs are skipped; empty string if none ran.
  static std::string render(const std::vector<KernelSummary>& kernels);
};
} // namespace npc::prof
