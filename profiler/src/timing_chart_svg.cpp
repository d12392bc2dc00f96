#include "npc/prof/timing_chart_svg.hpp"

#include <algorithm>

#include "npc/prof/html_escape.hpp"
#include "npc/prof/kernel_palette.hpp"
#include "npc/prof/svg_text.hpp"
#include "npc/prof/timing_chart.hpp"
#include "npc/prof/units.hpp"

namespace npc::prof {
namespace {
constexpr double kLabel = 200, kBar = 360, kValue = 330, kRow = 26, kTop = 8, kAxis = 24;
} // namespace

std::string TimingChartSvg::render(const std::vector<KernelSummary>& kernels) {
  const auto chart = TimingChart::of(kernels);
  if (chart.rows.empty())
    return {};
  const double max = chart.max_ms, step = chart.step_ms;
  std::vector<const KernelSummary*> rows;
  for (auto i : chart.rows)
    rows.push_back(&kernels[i]);

  using S = SvgText;
  const double width = kLabel + kBar + kValue;
  const double height = kTop + static_cast<double>(rows.size()) * kRow + kAxis;
  std::string o;
  // Scales down with the output area (no height: the viewBox keeps the aspect ratio).
  o +=
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"npc-svg npc-chart\" width=\"100%\" "
      "style=\"max-width:" +
      S::num(width) + "px\" viewBox=\"0 0 " + S::num(width) + " " + S::num(height) +
      "\" role=\"img\" font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif\">";
  o += "<title>kernel time: total of all runs per kernel</title>";
  o += "<rect x=\"0\" y=\"0\" width=\"" + S::num(width) + "\" height=\"" + S::num(height) +
       "\" fill=\"#ffffff\"/>";
  const double bottom = kTop + static_cast<double>(rows.size()) * kRow;
  for (double t = 0; t <= max * 1.0001; t += step) {
    const double x = kLabel + t / max * kBar;
    o += "<line x1=\"" + S::num(x) + "\" y1=\"" + S::num(kTop - 2) + "\" x2=\"" + S::num(x) +
         "\" y2=\"" + S::num(bottom) + "\" stroke=\"" + (t == 0 ? "#8c959f" : "#e1e6eb") +
         "\" stroke-width=\"1\"/>";
    o += "<text x=\"" + S::num(x) + "\" y=\"" + S::num(bottom + 16) +
         "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\">" +
         html_escape(t == 0 ? std::string("0") : Units::ms(t)) + "</text>";
  }
  double y = kTop;
  for (auto* k : rows) {
    const double w = std::max(1.5, k->total_ms / max * kBar);
    o += "<g><title>" + html_escape(TimingChart::details(*k)) + "</title>";
    o += "<text x=\"" + S::num(kLabel - 8) + "\" y=\"" + S::num(y + 17) +
         "\" text-anchor=\"end\" font-size=\"12\" fill=\"#1f2328\" "
         "font-family=\"ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace\">" +
         html_escape(S::truncate(k->name, 28)) + "</text>";
    o += "<rect x=\"" + S::num(kLabel) + "\" y=\"" + S::num(y + 5) + "\" width=\"" + S::num(w) +
         "\" height=\"16\" rx=\"2\" fill=\"" + KernelPalette::target(k->target) + "\"/>";
    const std::string value = TimingChart::bar_label(*k);
    o += "<text x=\"" + S::num(kLabel + w + 6) + "\" y=\"" + S::num(y + 17) +
         "\" font-size=\"11.5\" fill=\"#1f2328\">" + html_escape(value) + "</text></g>";
    y += kRow;
  }
  o += "</svg>";
  return o;
}
} // namespace npc::prof
