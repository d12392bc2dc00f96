#include "npc/prof/fusion_graph_svg.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <vector>

#include "npc/prof/html_escape.hpp"
#include "npc/prof/kernel_palette.hpp"
#include "npc/prof/svg_text.hpp"

namespace npc::prof {
namespace {
constexpr double kW = 150, kH = 42, kHGap = 14, kVGap = 34, kPad = 12, kHead = 26, kBandGap = 16,
                 kMargin = 8;

// "M x,y C x,y x,y x,y", built by append: GCC 12 warns falsely (-Wrestrict) on "lit" + string.
std::string bezier(double x0, double y0, double x1, double y1, double x2, double y2, double x3,
                   double y3) {
  std::string d = "M";
  const double v[8] = {x0, y0, x1, y1, x2, y2, x3, y3};
  for (int i = 0; i < 8; ++i) {
    if (i == 2)
      d.append(" C");
    else if (i > 0)
      d.append(i % 2 ? "," : " ");
    d.append(SvgText::num(v[i]));
  }
  return d;
}

struct Placed {
  const FusionNode* node;
  std::int64_t depth = 0;
  double x = 0, y = 0;
};
} // namespace

std::string FusionGraphSvg::render(const FusionGraph& g, std::string_view uid) {
  const std::string marker = std::string("npc-arrow-") + std::string(uid);
  std::unordered_map<std::int64_t, std::size_t> index;
  std::vector<Placed> nodes;
  nodes.reserve(g.nodes.size());
  for (const auto& n : g.nodes) {
    if (index.count(n.id))
      continue; // duplicate ids: keep the first
    index.emplace(n.id, nodes.size());
    nodes.push_back({&n});
  }

  // Depth = longest path from a leaf. Iterative, with a guard against cycles in bad input.
  std::vector<int> state(nodes.size(), 0); // 0 new, 1 in progress, 2 done
  for (std::size_t root = 0; root < nodes.size(); ++root) {
    if (state[root])
      continue;
    std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      const auto& ins = nodes[v].node->inputs;
      if (next < ins.size()) {
        auto it = index.find(ins[next++]);
        if (it != index.end() && state[it->second] == 0) {
          state[it->second] = 1;
          stack.push_back({it->second, 0});
        }
        continue;
      }
      std::int64_t d = 0;
      for (auto id : ins)
        if (auto it = index.find(id); it != index.end() && state[it->second] == 2)
          d = std::max(d, nodes[it->second].depth + 1);
      nodes[v].depth = d;
      state[v] = 2;
      stack.pop_back();
    }
  }

  // One band per kernel (not-fused first), columns inside a band as wide as its widest row.
  std::map<std::int64_t, std::map<std::int64_t, std::vector<std::size_t>>> bands;
  std::int64_t max_depth = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto k = std::max<std::int64_t>(-1, nodes[i].node->kernel);
    bands[k][nodes[i].depth].push_back(i);
    max_depth = std::max(max_depth, nodes[i].depth);
  }
  struct Band {
    std::int64_t kernel;
    double x, w;
    std::size_t count;
  };
  std::vector<Band> band_boxes;
  double x = kMargin;
  for (auto& [k, rows] : bands) {
    std::size_t cols = 1, count = 0;
    for (auto& [d, ids] : rows) {
      cols = std::max(cols, ids.size());
      count += ids.size();
      for (std::size_t c = 0; c < ids.size(); ++c) {
        nodes[ids[c]].x = x + kPad + static_cast<double>(c) * (kW + kHGap);
        nodes[ids[c]].y = kMargin + kHead + kPad + static_cast<double>(d) * (kH + kVGap);
      }
    }
    const double w =
        2 * kPad + static_cast<double>(cols) * kW + static_cast<double>(cols - 1) * kHGap;
    band_boxes.push_back({k, x, w, count});
    x += w + kBandGap;
  }
  const double width = std::max(200.0, x - kBandGap + kMargin);
  const double band_h = kHead + 2 * kPad + static_cast<double>(max_depth + 1) * kH +
                        static_cast<double>(max_depth) * kVGap;
  const double height = band_h + 2 * kMargin;

  using S = SvgText;
  std::string o;
  o +=
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"npc-svg\" width=\"" + S::num(width) +
      "\" height=\"" + S::num(height) + "\" viewBox=\"0 0 " + S::num(width) + " " + S::num(height) +
      "\" role=\"img\" font-family=\"system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif\">";
  o += "<title>fused graph " + std::to_string(g.graph_id) + ": " + std::to_string(nodes.size()) +
       " ops in " + std::to_string(band_boxes.size()) + " groups</title>";
  o += "<defs><marker id=\"" + marker +
       "\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
       "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#57606a\"/></marker>"
       "</defs>";
  o += "<rect x=\"0\" y=\"0\" width=\"" + S::num(width) + "\" height=\"" + S::num(height) +
       "\" fill=\"#ffffff\"/>";
  for (const auto& b : band_boxes) {
    const std::string label =
        b.kernel < 0 ? "not fused (inputs, eager)" : "kernel " + std::to_string(b.kernel);
    o += "<rect x=\"" + S::num(b.x) + "\" y=\"" + S::num(kMargin) + "\" width=\"" + S::num(b.w) +
         "\" height=\"" + S::num(band_h) + "\" rx=\"8\" fill=\"" + KernelPalette::fill(b.kernel) +
         "\" fill-opacity=\"0.45\" stroke=\"" + KernelPalette::stroke(b.kernel) +
         "\" stroke-width=\"1.2\"" + (b.kernel < 0 ? " stroke-dasharray=\"4 3\"" : "") + "/>";
    o += "<text x=\"" + S::num(b.x + kPad) + "\" y=\"" + S::num(kMargin + 17) +
         "\" font-size=\"12\" font-weight=\"600\" fill=\"" + KernelPalette::stroke(b.kernel) +
         "\">" + html_escape(S::truncate(label, static_cast<std::size_t>(b.w / 7.2))) + "</text>";
  }
  for (const auto& p : nodes) {
    std::vector<std::int64_t> seen; // x * x draws one arrow
    for (auto id : p.node->inputs) {
      auto it = index.find(id);
      if (it == index.end() || std::find(seen.begin(), seen.end(), id) != seen.end())
        continue;
      seen.push_back(id);
      const auto& q = nodes[it->second];
      const double x1 = q.x + kW / 2, y1 = q.y + kH;
      std::string d;
      if (p.depth - q.depth > 1 && std::fabs(q.x - p.x) < 1) {
        // Same column, rows apart: loop round the right-hand side of the boxes between.
        const double xs = q.x + kW + 2, ys = q.y + kH / 2, x2 = p.x + kW + 2, y2 = p.y + kH / 2;
        d = bezier(xs, ys, xs + 40, ys, x2 + 40, y2, x2, y2);
      } else if (p.depth - q.depth <= 1) {
        // Next row: straight into the top.
        const double x2 = p.x + kW / 2, y2 = p.y - 2;
        const double dy = std::max(14.0, (y2 - y1) / 2);
        d = bezier(x1, y1, x1, y1 + dy, x2, y2 - dy, x2, y2);
      } else {
        // Skipping rows: come in from the side, so the arrow does not cross the boxes above.
        const bool from_left = q.x < p.x;
        const double x2 = from_left ? p.x - 2 : p.x + kW + 2, y2 = p.y + kH / 2;
        const double cx = from_left ? x2 - 36 : x2 + 36;
        d = bezier(x1, y1, x1, y2, cx, y2, x2, y2);
      }
      o += "<path d=\"" + d +
           "\" fill=\"none\" stroke=\"#57606a\" stroke-opacity=\"0.75\" stroke-width=\"1.3\" "
           "marker-end=\"url(#" +
           marker + ")\"/>";
    }
  }
  for (const auto& p : nodes) {
    const auto& n = *p.node;
    const auto k = std::max<std::int64_t>(-1, n.kernel);
    // Built with append(): GCC 12 warns falsely (-Wrestrict) on "lit" + std::string here.
    std::string tip = "#";
    tip.append(std::to_string(n.id)).append(" ").append(n.op);
    if (!n.label.empty())
      tip.append(": ").append(n.label);
    if (k >= 0)
      tip.append(" (kernel ").append(std::to_string(k)).append(")");
    else
      tip.append(" (not fused)");
    o += "<g><title>" + html_escape(tip) + "</title>";
    o += "<rect x=\"" + S::num(p.x) + "\" y=\"" + S::num(p.y) + "\" width=\"" + S::num(kW) +
         "\" height=\"" + S::num(kH) + "\" rx=\"6\" fill=\"" +
         (k < 0 ? std::string("#ffffff") : KernelPalette::fill(k)) + "\" stroke=\"" +
         KernelPalette::stroke(k) + "\" stroke-width=\"1.6\"/>";
    const bool two_lines = !n.label.empty();
    o += "<text x=\"" + S::num(p.x + kW / 2) + "\" y=\"" + S::num(p.y + (two_lines ? 17 : 26)) +
         "\" text-anchor=\"middle\" font-size=\"12.5\" font-weight=\"600\" fill=\"#1f2328\">" +
         html_escape(S::truncate(n.op, 19)) + "</text>";
    if (two_lines)
      o += "<text x=\"" + S::num(p.x + kW / 2) + "\" y=\"" + S::num(p.y + 33) +
           "\" text-anchor=\"middle\" font-size=\"11\" fill=\"#57606a\" "
           "font-family=\"ui-monospace,Menlo,Consolas,'DejaVu Sans Mono',monospace\">" +
           html_escape(S::truncate(n.label, 21)) + "</text>";
    o += "</g>";
  }
  o += "</svg>";
  return o;
}
} // namespace npc::prof
