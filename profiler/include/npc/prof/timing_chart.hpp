#pragma once
// The kernel-timing bar chart as data: which kernels get a bar, in which order, and the time
// axis. The report's SVG and the desktop viewer both draw from it, so they show the same bars.
#include <cstddef>
#include <string>
#include <vector>

#include "npc/prof/kernel_summary.hpp"

namespace npc::prof {
struct TimingChart {
  static constexpr std::size_t kMaxBars = 40;
  std::vector<std::size_t> rows{}; // indices of kernels that ran, slowest total first
  double max_ms = 1.0;             // the axis ends here (the slowest total, or 1 if all are 0)
  double step_ms = 0.25;           // between ticks: 1, 2 or 5 times a power of ten

  static TimingChart of(const std::vector<KernelSummary>& kernels);
  // "3.00 ms · 2 runs · median 1.50 ms · 12.3 GB/s": what is written beside a bar.
  static std::string bar_label(const KernelSummary& k);
  // The bar's tooltip: runs, total, median, min, max, GB/s.
  static std::string details(const KernelSummary& k);
};
} // namespace npc::prof
