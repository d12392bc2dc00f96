#include "npc/prof/timing_chart.hpp"

#include <algorithm>
#include <cmath>

#include "npc/prof/units.hpp"

namespace npc::prof {
namespace {
// A step of 1, 2 or 5 times a power of ten giving about four ticks up to max.
double nice_step(double max) {
  const double raw = max / 4;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw)
      return m * p;
  return 10 * p;
}
} // namespace

TimingChart TimingChart::of(const std::vector<KernelSummary>& kernels) {
  TimingChart c;
  for (std::size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].runs > 0)
      c.rows.push_back(i);
  std::stable_sort(c.rows.begin(), c.rows.end(), [&](std::size_t a, std::size_t b) {
    return kernels[a].total_ms > kernels[b].total_ms;
  });
  if (c.rows.size() > kMaxBars)
    c.rows.resize(kMaxBars);
  double max = 0;
  for (auto i : c.rows)
    max = std::max(max, kernels[i].total_ms);
  c.max_ms = max > 0 ? max : 1.0;
  c.step_ms = nice_step(c.max_ms);
  return c;
}

std::string TimingChart::bar_label(const KernelSummary& k) {
  std::string value = Units::ms(k.total_ms) + " · " + std::to_string(k.runs) +
                      (k.runs == 1 ? " run" : " runs") + " · median " + Units::ms(k.median_ms);
  if (k.gbps > 0)
    value += " · " + Units::gbps(k.gbps);
  return value;
}

std::string TimingChart::details(const KernelSummary& k) {
  return k.name + ": " + std::to_string(k.runs) + " runs, total " + Units::ms(k.total_ms) +
         ", median " + Units::ms(k.median_ms) + ", min " + Units::ms(k.min_ms) + ", max " +
         Units::ms(k.max_ms) + (k.gbps > 0 ? ", " + Units::gbps(k.gbps) : "");
}
} // namespace npc::prof
