#include "npc/prof/render_html.hpp"

#include <algorithm>
#include <string_view>

#include "npc/prof/code_highlighter.hpp"
#include "npc/prof/compile_phases.hpp"
#include "npc/prof/fusion_graph_svg.hpp"
#include "npc/prof/html_escape.hpp"
#include "npc/prof/kernel_palette.hpp"
#include "npc/prof/schema.hpp"
#include "npc/prof/source_location.hpp"
#include "npc/prof/timing_chart_svg.hpp"
#include "npc/prof/units.hpp"

namespace npc::prof {
namespace {
using Lang = CodeHighlighter::Language;

// Every selector starts with the root class; element selectors also carry one of ours so
// they outrank the notebook's `.rendered_html table ...` rules.
constexpr std::string_view kCss = R"CSS(
.npcprof-v1{all:initial;display:block;box-sizing:border-box;max-width:1120px;margin:6px 0;padding:14px 18px 10px;
 background:#ffffff;color:#1f2328;color-scheme:light;border:1px solid #d0d7de;border-radius:10px;
 font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif;
 font-size:13px;line-height:1.5;text-align:left;-webkit-text-size-adjust:100%}
.npcprof-v1 *{box-sizing:border-box}
.npcprof-v1 .npc-head{display:flex;align-items:baseline;gap:10px;flex-wrap:wrap;margin:0 0 10px}
.npcprof-v1 .npc-title{font-size:16px;font-weight:700;color:#1f2328;letter-spacing:.01em}
.npcprof-v1 .npc-sub{font-size:12px;color:#57606a}
.npcprof-v1 .npc-cards{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 10px;padding:0}
.npcprof-v1 .npc-card{flex:0 0 auto;min-width:104px;padding:6px 12px 7px;border:1px solid #d0d7de;border-radius:8px;background:#f6f8fa}
.npcprof-v1 .npc-card .npc-v{display:block;font-size:19px;font-weight:650;line-height:1.25;font-variant-numeric:tabular-nums;color:#1f2328}
.npcprof-v1 .npc-card .npc-l{display:block;font-size:11px;color:#57606a;text-transform:uppercase;letter-spacing:.04em}
.npcprof-v1 .npc-card.npc-warn{background:#fff8c5;border-color:#d4a72c}
.npcprof-v1 .npc-card.npc-good{background:#dafbe1;border-color:#4ac26b}
.npcprof-v1 details.npc-sec{border-top:1px solid #d8dee4;margin:0;padding:4px 0 6px}
.npcprof-v1 details.npc-sec>summary{cursor:pointer;padding:5px 0;font-size:14px;font-weight:650;color:#1f2328;display:list-item}
.npcprof-v1 details>summary:focus{outline:none}
.npcprof-v1 details>summary:focus-visible{outline:2px solid #0969da;outline-offset:2px}
.npcprof-v1 .npc-n{display:inline-block;min-width:20px;margin-left:6px;padding:0 7px;border-radius:10px;background:#eaeef2;color:#424a53;font-size:11.5px;font-weight:600;text-align:center;vertical-align:1px}
.npcprof-v1 .npc-n.npc-warn{background:#fff1b8;color:#7d4e00}
.npcprof-v1 .npc-muted{color:#57606a}
.npcprof-v1 .npc-empty{color:#57606a;font-style:italic;margin:2px 0 6px}
.npcprof-v1 p.npc-p{margin:4px 0 8px;padding:0}
.npcprof-v1 .npc-brk{border:1px solid #d8dee4;border-left:4px solid #d4a72c;border-radius:6px;padding:7px 11px 8px;margin:6px 0;background:#fffdf5}
.npcprof-v1 .npc-brk-top{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.npcprof-v1 .npc-pill{flex:0 0 auto;padding:0 7px;border-radius:10px;background:#9a6700;color:#ffffff;font-size:11.5px;font-weight:700;font-variant-numeric:tabular-nums}
.npcprof-v1 .npc-reason{font-weight:600;color:#1f2328;word-break:break-word}
.npcprof-v1 .npc-loc{font-size:12px;color:#57606a;margin-top:2px}
.npcprof-v1 .npc-hint{margin-top:5px;font-size:12.5px;color:#0a3069}
.npcprof-v1 .npc-hint b{color:#0969da}
.npcprof-v1 .npc-mono,.npcprof-v1 code.npc-c{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:12px}
.npcprof-v1 code.npc-c{padding:1px 5px;border-radius:4px;background:#eff2f5;color:#1f2328;white-space:pre-wrap;word-break:break-word}
.npcprof-v1 pre.npc-line{margin:5px 0 0;padding:4px 8px;border-radius:4px;background:#f6f8fa;border:1px solid #eaeef2;color:#1f2328;
 font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:12px;line-height:1.5;white-space:pre-wrap;word-break:break-word;overflow:visible}
.npcprof-v1 .npc-lno{color:#8c959f;user-select:none;-webkit-user-select:none;margin-right:10px}
.npcprof-v1 table.npc-t{border-collapse:collapse;border-spacing:0;border:none;margin:6px 0 8px;width:auto;max-width:100%;table-layout:auto;font-size:12.5px;color:#1f2328;background:transparent}
.npcprof-v1 table.npc-t th,.npcprof-v1 table.npc-t td{padding:4px 12px 4px 0;border:none;border-bottom:1px solid #eaeef2;text-align:left;vertical-align:top;line-height:1.45;white-space:normal;max-width:none;background:transparent;color:#1f2328}
.npcprof-v1 table.npc-t th{font-weight:600;font-size:11.5px;color:#57606a;text-transform:uppercase;letter-spacing:.03em;border-bottom:1px solid #d0d7de}
.npcprof-v1 table.npc-t tbody tr:nth-child(odd),.npcprof-v1 table.npc-t tbody tr:nth-child(even){background:transparent}
.npcprof-v1 table.npc-t tbody tr:hover{background:#f6f8fa}
.npcprof-v1 table.npc-t .npc-r{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.npcprof-v1 .npc-tw{overflow-x:auto;max-width:100%;margin:0;padding:0}
.npcprof-v1 .npc-fig{overflow-x:auto;margin:4px 0 8px;padding:0}
.npcprof-v1 img.npc-svg{display:block;max-width:100%;height:auto;border:none;margin:0;padding:0;background:transparent}
.npcprof-v1 .npc-sep{display:none}
.npcprof-v1 .npc-graph{margin:4px 0 12px}
.npcprof-v1 .npc-graph h4{margin:6px 0 4px;padding:0;font-size:13px;font-weight:650;color:#1f2328}
.npcprof-v1 ul.npc-dec{margin:4px 0 0;padding-left:20px;font-size:12.5px;color:#424a53}
.npcprof-v1 ul.npc-dec li{margin:1px 0}
.npcprof-v1 details.npc-k{border:1px solid #d8dee4;border-radius:6px;margin:6px 0;padding:0 10px;background:#ffffff}
.npcprof-v1 details.npc-k>summary{cursor:pointer;padding:6px 0;font-size:13px;display:list-item}
.npcprof-v1 details.npc-k[open]>summary{border-bottom:1px solid #eaeef2;margin-bottom:6px}
.npcprof-v1 .npc-tag{display:inline-block;padding:0 6px;margin-left:6px;border-radius:4px;font-size:11px;font-weight:600;background:#ddf4ff;color:#0550ae;vertical-align:1px}
.npcprof-v1 .npc-tag.npc-cuda{background:#dafbe1;color:#116329}
.npcprof-v1 .npc-dot{display:inline-block;width:10px;height:10px;border-radius:3px;margin-right:6px;vertical-align:-1px}
.npcprof-v1 .npc-code{display:flex;margin:6px 0 10px;border:1px solid #d8dee4;border-radius:6px;background:#f6f8fa;max-height:520px;overflow:auto}
.npcprof-v1 .npc-code pre{margin:0;padding:8px 10px;border:none;border-radius:0;background:transparent;color:#1f2328;
 font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace;font-size:12px;line-height:1.5;white-space:pre;tab-size:4;overflow:visible}
.npcprof-v1 .npc-code pre code{display:inline;margin:0;padding:0;border:none;border-radius:0;background:transparent;color:inherit;font:inherit;white-space:inherit;word-break:normal}
.npcprof-v1 .npc-code pre.npc-gut{flex:0 0 auto;text-align:right;color:#8c959f;background:#eef1f4;border-right:1px solid #d8dee4;user-select:none;-webkit-user-select:none}
.npcprof-v1 .npc-code pre.npc-src{flex:1 1 auto}
.npcprof-v1 .npc-hk{color:#cf222e}
.npcprof-v1 .npc-ht{color:#8250df}
.npcprof-v1 .npc-hn{color:#0550ae}
.npcprof-v1 .npc-hc{color:#6e7781;font-style:italic}
.npcprof-v1 .npc-hs{color:#0a3069}
.npcprof-v1 .npc-hp{color:#953800}
.npcprof-v1 .npc-foot{margin-top:6px;padding-top:6px;border-top:1px solid #d8dee4;font-size:11.5px;color:#6e7781}
)CSS";

std::string esc(std::string_view s) { return html_escape(s); }

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size() + s.size() / 16);
  std::size_t pos = 0;
  for (auto hit = s.find(from); hit != std::string::npos; hit = s.find(from, pos)) {
    out.append(s, pos, hit - pos).append(to);
    pos = hit + from.size();
  }
  out.append(s, pos, std::string::npos);
  s = std::move(out);
}

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const auto n = (std::uint32_t(std::uint8_t(bytes[i])) << 16) |
                   (std::uint32_t(std::uint8_t(bytes[i + 1])) << 8) | std::uint8_t(bytes[i + 2]);
    for (int k = 18; k >= 0; k -= 6)
      out += kDigits[(n >> k) & 63];
  }
  if (i < bytes.size()) {
    auto n = std::uint32_t(std::uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      n |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
    out += kDigits[(n >> 18) & 63];
    out += kDigits[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kDigits[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// A picture as an image of its SVG, not the SVG inline: a notebook that is not trusted
// (one run headless, then opened) passes outputs through a sanitizer that drops <svg>
// and <style> but keeps their text, and the charts' labels ran into the report's text.
// An image is kept whole or dropped whole (then its alt text stands in); its natural
// width is the SVG's, and it scales down with the output area.
std::string figure(const std::string& svg, const std::string& alt) {
  std::string width;
  if (auto at = svg.find("viewBox=\"0 0 "); at != std::string::npos) {
    at += 13;
    width = svg.substr(at, svg.find(' ', at) - at);
  }
  return "<img class=\"npc-svg\" alt=\"" + esc(alt) + "\"" +
         (width.empty() ? "" : " width=\"" + width + "\"") +
         " src=\"data:image/svg+xml;base64," + base64(svg) + "\">";
}


void card(std::string& o, const std::string& value, const std::string& label,
          const char* cls = "") {
  o += "<div class=\"npc-card";
  if (*cls)
    (o += ' ') += cls;
  // (the spaces and the " · " are for a sanitized view without the stylesheet, where
  // "1graph" and "0recompiles" ran together; styled, the cards hide them)
  o += "\"><span class=\"npc-v\">" + esc(value) + "</span> <span class=\"npc-l\">" + esc(label) +
       "</span><span class=\"npc-sep\"> · </span></div>";
}

void section_open(std::string& o, const std::string& title, std::size_t count, bool open,
                  bool warn = false) {
  o += open ? "<details class=\"npc-sec\" open><summary>" : "<details class=\"npc-sec\"><summary>";
  o += esc(title) + " ";
  o += warn && count ? "<span class=\"npc-n npc-warn\">" : "<span class=\"npc-n\">";
  o += std::to_string(count) + "</span></summary>";
}

void code_block(std::string& o, const std::string& code, Lang lang) {
  std::size_t lines = 1;
  for (char c : code)
    lines += c == '\n';
  if (!code.empty() && code.back() == '\n')
    --lines;
  o += "<div class=\"npc-code\"><pre class=\"npc-gut\" aria-hidden=\"true\">";
  for (std::size_t i = 1; i <= lines; ++i) {
    o += std::to_string(i);
    if (i < lines)
      o += '\n';
  }
  o += "</pre><pre class=\"npc-src\"><code>";
  o += CodeHighlighter::highlight(code, lang);
  o += "</code></pre></div>";
}

void summary_cards(std::string& o, const Report& r) {
  const auto& s = r.summary;
  o += "<div class=\"npc-cards\">";
  card(o, std::to_string(s.graphs), s.graphs == 1 ? "graph" : "graphs");
  card(o, std::to_string(s.graph_breaks),
       s.unique_breaks != s.graph_breaks ? "breaks (" + std::to_string(s.unique_breaks) + " places)"
                                         : (s.graph_breaks == 1 ? "graph break" : "graph breaks"),
       s.graph_breaks ? "npc-warn" : "");
  card(o, std::to_string(s.recompiles), s.recompiles == 1 ? "recompile" : "recompiles",
       s.recompiles ? "npc-warn" : "");
  card(o, std::to_string(s.kernels),
       (s.kernels == 1 ? "kernel, " : "kernels, ") + std::to_string(s.kernel_runs) + " runs");
  card(o, Units::ms(s.compile_ms),
       "compile" + (s.cache_hits ? " (" + std::to_string(s.cache_hits) + " cached)" : ""));
  card(o, Units::ms(s.run_ms), "kernel time");
  if (s.speedup > 0)
    card(o, Units::speedup(s.speedup), "speedup over eager NumPy", s.speedup >= 1 ? "npc-good" : "npc-warn");
  if (s.fallbacks)
    card(o, std::to_string(s.fallbacks), "fallbacks", "npc-warn");
  if (s.transfer_bytes)
    card(o, Units::bytes(s.transfer_bytes), "host↔device");
  o += "</div>";
}

void breaks_section(std::string& o, const Report& r) {
  section_open(o, "Graph breaks", r.breaks.size(), true, true);
  if (r.breaks.empty()) {
    o += "<p class=\"npc-empty\">None: tracing never had to stop.</p>";
  } else {
    o += "<p class=\"npc-p npc-muted\">Where Python needed a concrete value, so the pending "
         "graph was compiled and run and tracing started again after it.</p>";
  }
  for (const auto& b : r.breaks) {
    o += "<div class=\"npc-brk\"><div class=\"npc-brk-top\"><span class=\"npc-pill\">" +
         std::to_string(b.count) + "×</span> <span class=\"npc-reason\">" + esc(b.reason) +
         "</span></div>";
    const auto loc = source_location(b.filename, b.lineno);
    if (!loc.empty() || !b.function.empty()) {
      o += "<div class=\"npc-loc\">";
      if (!loc.empty())
        o += "<span class=\"npc-mono\">" + esc(loc) + "</span>";
      if (!b.function.empty())
        o += " in <code class=\"npc-c\">" + esc(b.function) + "</code>";
      o += "</div>";
    }
    if (!b.code.empty()) {
      o += "<pre class=\"npc-line\">";
      if (b.lineno > 0)
        o += "<span class=\"npc-lno\">" + std::to_string(b.lineno) + "</span> ";
      o += CodeHighlighter::highlight(b.code, Lang::Python) + "</pre>";
    }
    if (!b.hint.empty())
      o += "<div class=\"npc-hint\"><b>Hint:</b> " + esc(b.hint) + "</div>";
    o += "</div>";
  }
  o += "</details>";
}

void recompiles_section(std::string& o, const Report& r) {
  if (r.recompiles.empty())
    return;
  section_open(o, "Recompilations", r.recompiles.size(), true, true);
  o += "<p class=\"npc-p npc-muted\">A cached graph's guards failed: what changed.</p>";
  o += "<table class=\"npc-t\"><thead><tr><th>function</th><th>where</th><th>graph</th>"
       "<th>guard that failed</th></tr></thead><tbody>";
  for (const auto& c : r.recompiles) {
    o += "<tr><td><code class=\"npc-c\">" + esc(c.function) +
         "</code></td><td class=\"npc-mono\">" + esc(source_location(c.filename, c.lineno)) +
         "</td><td class=\"npc-r\">" + (c.graph_id >= 0 ? std::to_string(c.graph_id) : "") +
         "</td><td><code class=\"npc-c\">" + esc(c.reason) + "</code></td></tr>";
  }
  o += "</tbody></table></details>";
}

void timings_section(std::string& o, const Report& r) {
  std::size_t ran = 0;
  for (const auto& k : r.kernels)
    ran += k.runs > 0;
  if (ran == 0)
    return;
  section_open(o, "Kernel timings", ran, true);
  o += "<div class=\"npc-fig\">" +
       figure(TimingChartSvg::render(r.kernels),
              "chart: each kernel's total time over all its runs (the table has the numbers)") +
       "</div>";
  o += "<table class=\"npc-t\"><thead><tr><th>kernel</th><th>target</th><th>graph</th>"
       "<th class=\"npc-r\">runs</th><th class=\"npc-r\">total</th><th class=\"npc-r\">median</th>"
       "<th class=\"npc-r\">min</th><th class=\"npc-r\">max</th><th class=\"npc-r\">moved</th>"
       "<th class=\"npc-r\">bandwidth</th></tr></thead><tbody>";
  for (const auto& k : r.kernels) {
    if (k.runs == 0)
      continue;
    o += "<tr><td class=\"npc-mono\">" + esc(k.name) + "</td><td>" + esc(k.target) +
         "</td><td class=\"npc-r\">" + (k.graph_id >= 0 ? std::to_string(k.graph_id) : "") +
         "</td><td class=\"npc-r\">" + std::to_string(k.runs) + "</td><td class=\"npc-r\">" +
         Units::ms(k.total_ms) + "</td><td class=\"npc-r\">" + Units::ms(k.median_ms) +
         "</td><td class=\"npc-r\">" + Units::ms(k.min_ms) + "</td><td class=\"npc-r\">" +
         Units::ms(k.max_ms) + "</td><td class=\"npc-r\">" +
         (k.bytes ? Units::bytes(k.bytes) : "") + "</td><td class=\"npc-r\">" +
         Units::gbps(k.gbps) + "</td></tr>";
  }
  o += "</tbody></table>";
  bool any_eager = false;
  for (const auto& g : r.graph_timings)
    any_eager = any_eager || g.eager_ms > 0;
  if (any_eager) {
    o += "<table class=\"npc-t\"><thead><tr><th class=\"npc-r\">graph</th><th "
         "class=\"npc-r\">runs</th>"
         "<th class=\"npc-r\">compiled / run</th><th class=\"npc-r\">eager NumPy / run</th>"
         "<th class=\"npc-r\">eager runs timed</th>"
         "<th class=\"npc-r\">speedup</th></tr></thead><tbody>";
    for (const auto& g : r.graph_timings)
      o += "<tr><td class=\"npc-r\">" + std::to_string(g.graph_id) + "</td><td class=\"npc-r\">" +
           std::to_string(g.runs) + "</td><td class=\"npc-r\">" + Units::ms(g.compiled_ms) +
           "</td><td class=\"npc-r\">" + (g.eager_ms > 0 ? Units::ms(g.eager_ms) : "") +
           "</td><td class=\"npc-r\">" + (g.eager_runs > 0 ? std::to_string(g.eager_runs) : "") +
           "</td><td class=\"npc-r\">" + Units::speedup(g.speedup) + "</td></tr>";
    o += "</tbody></table>";
  }
  o += "</details>";
}

void graphs_section(std::string& o, const Report& r) {
  if (r.graphs.empty())
    return;
  section_open(o, "Fused graphs", r.graphs.size(), true);
  o += "<p class=\"npc-p npc-muted\">Each box is a NumPy op; boxes of one colour became one "
       "kernel; arrows point from an op's inputs to it.</p>";
  std::size_t i = 0;
  for (const auto& g : r.graphs) {
    std::int64_t kernels = -1;
    for (const auto& n : g.nodes)
      kernels = std::max(kernels, n.kernel);
    o += "<div class=\"npc-graph\"><h4>graph " + std::to_string(g.graph_id) +
         " <span class=\"npc-muted\">· " + std::to_string(g.nodes.size()) + " ops → " +
         std::to_string(kernels + 1) + (kernels == 0 ? " kernel" : " kernels") + "</span></h4>";
    if (g.nodes.size() <= FusionGraphSvg::kMaxNodes)
      o += "<div class=\"npc-fig\">" +
           // (an image is a document of its own: its marker ids need not differ from
           // another graph's)
           figure(FusionGraphSvg::render(g, std::to_string(i++)),
                  "picture of graph " + std::to_string(g.graph_id) + "'s ops and kernels") +
           "</div>";
    else
      o += "<p class=\"npc-empty\">Too large to draw here (" + std::to_string(g.nodes.size()) +
           " ops); the text report lists every node.</p>";
    if (!g.decisions.empty()) {
      o += "<ul class=\"npc-dec\">";
      for (const auto& d : g.decisions)
        o += "<li>" + esc(d) + "</li>";
      o += "</ul>";
    }
    o += "</div>";
  }
  o += "</details>";
}

void code_section(std::string& o, const Report& r) {
  std::size_t with_source = 0;
  for (const auto& k : r.kernels)
    with_source += !k.source.empty();
  if (with_source == 0)
    return;
  section_open(o, "Generated code", with_source, true);
  o += "<p class=\"npc-p npc-muted\">Exactly the source that was compiled.</p>";
  bool first = true;
  for (const auto& k : r.kernels) {
    if (k.source.empty())
      continue;
    o += first ? "<details class=\"npc-k\" open><summary>" : "<details class=\"npc-k\"><summary>";
    first = false;
    o += "<span class=\"npc-mono\"><b>" + esc(k.name) + "</b></span><span class=\"npc-tag" +
         std::string(k.target == "cuda" ? " npc-cuda" : "") + "\">" + esc(k.target) + "</span>";
    if (k.graph_id >= 0)
      o += " <span class=\"npc-muted\">graph " + std::to_string(k.graph_id);
    else
      o += " <span class=\"npc-muted\">";
    if (!k.ops.empty())
      o += " · " + std::to_string(k.ops.size()) + " NumPy ops";
    if (k.runs)
      o += " · " + Units::ms(k.median_ms) + " median";
    o += "</span></summary>";
    if (!k.ops.empty()) {
      o += "<table class=\"npc-t\"><thead><tr><th>NumPy op</th><th class=\"npc-r\">line</th>"
           "<th>your code</th></tr></thead><tbody>";
      for (const auto& op : k.ops)
        o += "<tr><td class=\"npc-mono\">" + esc(op.op) + "</td><td class=\"npc-r\">" +
             (op.lineno > 0 ? std::to_string(op.lineno) : "") + "</td><td class=\"npc-mono\">" +
             CodeHighlighter::highlight(op.text, Lang::Python) + "</td></tr>";
      o += "</tbody></table>";
    }
    code_block(o, k.source, Lang::Cpp);
    if (!k.ptx.empty()) {
      o += "<details class=\"npc-k\"><summary>PTX</summary>";
      code_block(o, k.ptx, Lang::Ptx);
      o += "</details>";
    }
    o += "</details>";
  }
  o += "</details>";
}

void compiles_section(std::string& o, const Report& r) {
  if (r.compiles.empty())
    return;
  section_open(o, "Compilations", r.compiles.size(), false);
  o += "<table class=\"npc-t\"><thead><tr><th class=\"npc-r\">graph</th><th>function</th>"
       "<th>target</th><th class=\"npc-r\">kernels</th><th>cache</th><th class=\"npc-r\">total</th>"
       "<th>phases</th></tr></thead><tbody>";
  for (const auto& c : r.compiles) {
    std::string phases;
    for (const auto& [name, ms] : ordered_phases(c.phases)) {
      if (!phases.empty())
        phases += " · ";
      phases += name + " " + Units::ms(ms);
    }
    o += "<tr><td class=\"npc-r\">" + std::to_string(c.graph_id) +
         "</td><td><code class=\"npc-c\">" + esc(c.function) + "</code></td><td>" + esc(c.target) +
         "</td><td class=\"npc-r\">" + std::to_string(c.kernels) + "</td><td>" + esc(c.cache) +
         "</td><td class=\"npc-r\">" + Units::ms(c.total_ms) + "</td><td class=\"npc-muted\">" +
         esc(phases) + "</td></tr>";
  }
  o += "</tbody></table></details>";
}

void fallbacks_section(std::string& o, const Report& r) {
  if (r.fallbacks.empty())
    return;
  section_open(o, "Fallbacks to eager NumPy", r.fallbacks.size(), true, true);
  o += "<table class=\"npc-t\"><thead><tr><th class=\"npc-r\">graph</th><th>reason</th>"
       "<th>detail</th></tr></thead><tbody>";
  for (const auto& f : r.fallbacks)
    o += "<tr><td class=\"npc-r\">" + (f.graph_id >= 0 ? std::to_string(f.graph_id) : "") +
         "</td><td>" + esc(f.reason) + "</td><td><code class=\"npc-c\">" + esc(f.detail) +
         "</code></td></tr>";
  o += "</tbody></table></details>";
}

// What happened to each loop, in the words of its summary: one compiled kernel per
// iteration, a body compiled once, a nest run as one compiled function, or why it ran as
// Python. Iterations are blank where they were not counted (a compiled nest's).
void loops_section(std::string& o, const Report& r) {
  if (r.loops.empty())
    return;
  section_open(o, "Loops", r.loops.size(), true);
  o += "<table class=\"npc-t\"><thead><tr><th>function</th><th class=\"npc-r\">line</th>"
       "<th class=\"npc-r\">iterations</th><th>what happened</th><th>source</th>"
       "</tr></thead><tbody>";
  for (const auto& l : r.loops) {
    const std::string line = "line " + std::to_string(l.lineno) + ": ";
    const std::string what =
        l.summary.rfind(line, 0) == 0 ? l.summary.substr(line.size()) : l.summary;
    o += "<tr><td>" + esc(l.function) + "</td><td class=\"npc-r\">" + std::to_string(l.lineno) +
         "</td><td class=\"npc-r\">" + (l.iterations > 0 ? std::to_string(l.iterations) : "") +
         "</td><td>" + esc(what) + "</td><td><code class=\"npc-c\">" + esc(l.text) +
         "</code></td></tr>";
  }
  o += "</tbody></table></details>";
}

// Which path each jitted function runs for its arguments, and why (both times measured).
void path_choices_section(std::string& o, const Report& r) {
  if (r.path_choices.empty())
    return;
  section_open(o, "Path chosen", r.path_choices.size(), true);
  const bool loops = any_loops_path(r.path_choices), host = any_host_path(r.path_choices);
  o += "<table class=\"npc-t\"><thead><tr><th>function</th><th>runs</th>"
       "<th class=\"npc-r\">compiled</th><th class=\"npc-r\">plain NumPy</th>";
  if (loops)
    o += "<th class=\"npc-r\">loops compiled</th>";
  if (host)
    o += "<th class=\"npc-r\">compiled on the host</th>";
  o += "<th>why</th></tr></thead><tbody>";
  for (const auto& c : r.path_choices) {
    o += "<tr><td>" + esc(c.function) + "</td><td>" + esc(path_label(c.choice)) +
         "</td><td class=\"npc-r\">" + Units::timed_ms(c.compiled_ms) + "</td><td class=\"npc-r\">" +
         Units::timed_ms(c.numpy_ms) + "</td>";
    if (loops)
      o += "<td class=\"npc-r\">" + Units::timed_ms(c.loops_ms) + "</td>";
    if (host)
      o += "<td class=\"npc-r\">" + Units::timed_ms(c.host_ms) + "</td>";
    o += "<td>" + esc(c.reason) + "</td></tr>";
  }
  o += "</tbody></table></details>";
}

void transfers_section(std::string& o, const Report& r) {
  const auto& t = r.transfers;
  if (t.h2d_count + t.d2h_count == 0)
    return;
  section_open(o, "Host ↔ device copies", static_cast<std::size_t>(t.h2d_count + t.d2h_count),
               false);
  o += "<table class=\"npc-t\"><thead><tr><th>direction</th><th class=\"npc-r\">copies</th>"
       "<th class=\"npc-r\">bytes</th><th class=\"npc-r\">time</th><th "
       "class=\"npc-r\">bandwidth</th>"
       "</tr></thead><tbody>";
  auto row = [&](const char* dir, std::int64_t n, std::int64_t bytes, double ms) {
    if (!n)
      return;
    o += std::string("<tr><td>") + dir + "</td><td class=\"npc-r\">" + std::to_string(n) +
         "</td><td class=\"npc-r\">" + Units::bytes(bytes) + "</td><td class=\"npc-r\">" +
         Units::ms(ms) + "</td><td class=\"npc-r\">" +
         Units::gbps(ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0) + "</td></tr>";
  };
  row("host → device", t.h2d_count, t.h2d_bytes, t.h2d_ms);
  row("device → host", t.d2h_count, t.d2h_bytes, t.d2h_ms);
  o += "</tbody></table></details>";
}
} // namespace

std::string render_html(const Report& r) {
  std::string o;
  o.reserve(16384);
  o += "<div class=\"";
  o += kHtmlRootClass;
  o += "\" data-npc-schema=\"";
  o += kSchemaName;
  o += "\" data-npc-version=\"" + std::to_string(kSchemaVersion) + "\"><style>";
  o += kCss;
  o += "</style>";
  o += "<div class=\"npc-head\"><span class=\"npc-title\">npcompile report</span> ";
  // replayed calls are counted with the traces; "5 traces (4 replayed without tracing)"
  // would contradict itself, so a session with replays counts calls
  std::string sub = std::to_string(r.summary.traces) +
                    (r.summary.replays ? (r.summary.traces == 1 ? " call" : " calls")
                                       : (r.summary.traces == 1 ? " trace" : " traces"));
  if (r.summary.replays)
    sub += " (" + std::to_string(r.summary.replays) + " replayed without tracing)";
  if (r.summary.compiles)
    sub += " · " + std::to_string(r.summary.compiles) +
           (r.summary.compiles == 1 ? " compile" : " compiles");
  o += "<span class=\"npc-sub\">" + esc(sub) + "</span></div>";
  summary_cards(o, r);
  breaks_section(o, r);
  recompiles_section(o, r);
  fallbacks_section(o, r);
  path_choices_section(o, r);
  loops_section(o, r);
  timings_section(o, r);
  graphs_section(o, r);
  code_section(o, r);
  compiles_section(o, r);
  transfers_section(o, r);
  // Wide tables scroll inside the report instead of widening the output area. User text
  // is escaped, so these tags can only be ours.
  replace_all(o, "<table class=\"npc-t\">", "<div class=\"npc-tw\"><table class=\"npc-t\">");
  replace_all(o, "</table>", "</table></div>");
  o += "<div class=\"npc-foot\">";
  o += kSchemaName;
  o += " v" + std::to_string(kSchemaVersion) +
       " · times are wall-clock milliseconds · click a heading to fold it</div></div>";
  return o;
}
} // namespace npc::prof
