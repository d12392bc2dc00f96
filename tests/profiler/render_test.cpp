#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "npc/prof/code_highlighter.hpp"
#include "npc/prof/fusion_graph_svg.hpp"
#include "npc/prof/html_escape.hpp"
#include "npc/prof/render_html.hpp"
#include "npc/prof/render_text.hpp"
#include "npc/prof/report.hpp"
#include "npc/prof/session.hpp"
#include "npc/prof/source_location.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1))
    ++n;
  return n;
}

bool has(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

Report sample_report() {
  Session s;
  test::fill_sample(s);
  return Report::from_session(s);
}

TEST(RenderHtml, ShowsBreaksKernelsAndPictures) {
  const std::string h = render_html(sample_report());
  EXPECT_TRUE(h.starts_with("<div class=\"npcprof-v1\""));
  EXPECT_TRUE(has(h, "print() of a traced array"));
  EXPECT_TRUE(has(h, "bool() of a traced array"));
  EXPECT_TRUE(has(h, "3×")); // the deduplicated count
  EXPECT_TRUE(has(h, "a.py:5"));
  EXPECT_TRUE(has(h, "kern_exp"));
  EXPECT_TRUE(has(h, "kern_sum"));
  EXPECT_TRUE(has(h, "x: dtype float64 -&gt; float32"));
  // timing chart + fused graph, as images of their SVG (a sanitizer drops <svg> and keeps
  // its text, which ran into the report's)
  EXPECT_GE(count(h, "src=\"data:image/svg+xml;base64,"), 2u);
  EXPECT_EQ(count(h, "<svg"), 0u);
  EXPECT_EQ(count(h, "<img"), count(h, "alt=\""));
  EXPECT_EQ(count(h, "<details"), count(h, "</details>"));
  EXPECT_EQ(count(h, "<div"), count(h, "</div>"));
  EXPECT_EQ(count(h, "<pre"), count(h, "</pre>"));
  EXPECT_EQ(count(h, "<table"), count(h, "</table>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-hk\">for</span>")); // highlighted C++
  EXPECT_TRUE(has(h, "2.40×"));                             // speedup over eager
}

TEST(RenderHtml, SelfContainedAndScoped) {
  const std::string h = render_html(sample_report());
  EXPECT_FALSE(has(h, "<script"));
  EXPECT_FALSE(has(h, "http://") && !has(h, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_FALSE(has(h, "https://"));
  EXPECT_FALSE(has(h, "<link"));
  EXPECT_FALSE(has(h, "@import"));
  EXPECT_FALSE(has(h, "url(http"));
  // Every CSS rule is under the root class.
  const auto a = h.find("<style>") + 7, b = h.find("</style>");
  const std::string css = h.substr(a, b - a);
  std::size_t pos = 0;
  while ((pos = css.find('}', pos)) != std::string::npos) {
    auto next = css.find_first_not_of("\n ", pos + 1);
    if (next == std::string::npos)
      break;
    EXPECT_EQ(css.compare(next, 11, ".npcprof-v1"), 0) << css.substr(next, 40);
    pos = next;
  }
}

TEST(RenderHtml, EscapesUserTextEverywhere) {
  Session s;
  const std::string evil = "<script>alert('x')</script>";
  s.append(Event{1, 1, TraceStart{.function = evil}});
  s.append(Event{2, 1, GraphBreak{evil, evil, 3, evil, evil, "if a < b and c > d: " + evil}});
  s.append(Event{3, 1, Recompile{evil, evil, 1, evil, 0}});
  s.append(Event{4, 1, Compile{0, evil, "cpu", 1, {{evil, 1.0}}, 1.0, "miss"}});
  s.append(Event{
      5, 1,
      KernelSource{evil, 0, "cuda", "// " + evil + "\nint x = a<b;", evil, {{evil, 1, evil}}}});
  s.append(Event{6, 1, KernelRun{evil, 0, "cuda", 1.0, 10}});
  s.append(Event{7, 1, FusionGraph{0, {{0, evil, evil, 0, {}}}, {evil}}});
  s.append(Event{8, 1, Fallback{evil, 0, evil}});
  const std::string h = render_html(Report::from_session(s));
  EXPECT_FALSE(has(h, "<script"));
  EXPECT_FALSE(has(h, "</script"));
  EXPECT_TRUE(has(h, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  EXPECT_TRUE(has(h, "a&lt;b"));
  const std::string t = render_text(Report::from_session(s));
  EXPECT_TRUE(has(t, evil)); // plain text is not HTML: shown as is
}

TEST(RenderHtml, EmptyReportStillRenders) {
  const std::string h = render_html(Report{});
  EXPECT_TRUE(has(h, "npcompile report"));
  EXPECT_TRUE(has(h, "None: tracing never had to stop."));
  EXPECT_EQ(count(h, "<div"), count(h, "</div>"));
}

TEST(RenderHtml, HugeGraphIsNotDrawn) {
  Report r;
  FusionGraph g{.graph_id = 9};
  for (std::int64_t i = 0; i < 400; ++i)
    g.nodes.push_back(
        {i, "add", "", i / 20, i ? std::vector<std::int64_t>{i - 1} : std::vector<std::int64_t>{}});
  r.graphs.push_back(g);
  const std::string h = render_html(r);
  EXPECT_TRUE(has(h, "Too large to draw here (400 ops)"));
  EXPECT_EQ(count(h, "<img"), 0u);
  // The picture itself still copes (deep chains, no recursion).
  EXPECT_TRUE(FusionGraphSvg::render(g, "x").ends_with("</svg>"));
}

// The path each function runs and what happened to its loops: both renderers say it,
// with the user's text escaped.
TEST(RenderHtml, PathChoicesAndLoops) {
  Session s;
  s.record(PathChoice{"tiny<f>", "numpy", 0.5, 0.125, "plain NumPy is faster <here>"});
  s.record(LoopRun{"line 9: 99 iterations, one compiled kernel (k_step)", 3, "heat", 9,
                 "u[1:-1] = u[1:-1] + c * (u[2:] - u[:-2])", "k_step", 99});
  // a nest run as one compiled function: no iterations counted, its summary says it
  s.record(LoopRun{"line 4: the loop nest runs as one compiled function (npc_nest_1)", -1,
                   "sweep", 4, "for i in range(n):", "", 0});
  const Report r = Report::from_session(s);
  ASSERT_EQ(r.path_choices.size(), 1u);
  ASSERT_EQ(r.loops.size(), 2u);
  const std::string h = render_html(r);
  EXPECT_TRUE(has(h, "Path chosen"));
  EXPECT_TRUE(has(h, "tiny&lt;f&gt;"));
  EXPECT_TRUE(has(h, "plain NumPy is faster &lt;here&gt;"));
  EXPECT_TRUE(has(h, "0.125 ms") || has(h, "125 µs")) << h;
  EXPECT_TRUE(has(h, "Loops"));
  EXPECT_TRUE(has(h, ">99<"));
  EXPECT_TRUE(has(h, "k_step"));
  EXPECT_TRUE(has(h, "<td>the loop nest runs as one compiled function (npc_nest_1)</td>")) << h;
  EXPECT_TRUE(has(h, "<td class=\"npc-r\">4</td><td class=\"npc-r\"></td>")) << h;
  const std::string t = render_text(r);
  EXPECT_TRUE(has(t, "Path chosen"));
  EXPECT_TRUE(has(t, "heat: line 9: 99 iterations, one compiled kernel (k_step)"));
}

// The third path: the function's loops compiled, the rest plain NumPy, named so.
TEST(RenderHtml, TheLoopsPathIsNamed) {
  Session s;
  s.record(PathChoice{"solve", "loops", 2.0, 4.0, "its loops compiled and the rest plain NumPy",
                      0.5});
  s.record(PathChoice{"tiny", "numpy", 0.2, 0.1, "plain NumPy is faster"});
  const Report r = Report::from_session(s);
  const std::string h = render_html(r);
  EXPECT_TRUE(has(h, "<td>its loops compiled</td>")) << h;
  EXPECT_TRUE(has(h, "<th class=\"npc-r\">loops compiled</th>")) << h;
  EXPECT_TRUE(has(h, "0.500 ms") || has(h, "500 µs")) << h;
  const std::string t = render_text(r);
  EXPECT_TRUE(has(t, "its loops compiled") && has(t, "loops compiled")) << t;
  // a session without the loops path keeps the table as it was
  Session plain;
  plain.record(PathChoice{"tiny", "numpy", 0.2, 0.1, "plain NumPy is faster"});
  EXPECT_FALSE(has(render_html(Report::from_session(plain)), "loops compiled"));
  EXPECT_EQ(path_label("numpy"), "plain NumPy");
  EXPECT_EQ(path_label("compiled"), "compiled");
}

// device="cuda"'s host path: the function compiled for the CPU, its own column, which
// a session with a loops path keeps beside it.
TEST(RenderHtml, TheHostPathIsNamed) {
  Session s;
  s.record(PathChoice{"stencil", "host", 3.0, 2.0, "compiled for the host's CPU is fastest", 0.0,
                      0.25});
  s.record(PathChoice{"solve", "loops", 2.0, 4.0, "its loops compiled", 0.5});
  const Report r = Report::from_session(s);
  const std::string h = render_html(r);
  EXPECT_TRUE(has(h, "<td>compiled on the host</td>")) << h;
  EXPECT_TRUE(has(h, "<th class=\"npc-r\">compiled on the host</th>")) << h;
  EXPECT_TRUE(has(h, "<th class=\"npc-r\">loops compiled</th>")) << h;
  const std::string t = render_text(r);
  EXPECT_TRUE(has(t, "compiled on the host") && has(t, "loops compiled")) << t;
  nlohmann::json j = PathChoice{"f", "host", 1.0, 2.0, "", 0.0, 0.5};
  EXPECT_EQ(j.at("host_ms"), 0.5);
  EXPECT_FALSE(j.contains("loops_ms"));
  EXPECT_EQ(j.get<PathChoice>().host_ms, 0.5);
}

// A choice made by a budget timed neither side: a dash, not "0.00 ms" for both.
TEST(RenderHtml, UntimedPathChoiceShowsADash) {
  Session s;
  s.record(PathChoice{"loop", "numpy", 0.0, 0.0, "the call broke the graph 32 times"});
  const std::string h = render_html(Report::from_session(s));
  EXPECT_TRUE(has(h, "<td class=\"npc-r\">-</td><td class=\"npc-r\">-</td>")) << h;
  const std::string t = render_text(Report::from_session(s));
  const auto at = t.find("the call broke");
  ASSERT_NE(at, std::string::npos) << t;
  const std::string row = t.substr(t.rfind('\n', at) + 1, at - t.rfind('\n', at));
  EXPECT_FALSE(has(row, "0.00 ms")) << row;
  EXPECT_TRUE(has(row, "-")) << row;
}

TEST(RenderText, SameFactsAligned) {
  const std::string t = render_text(sample_report());
  EXPECT_TRUE(has(t, "4 graph breaks (2 places)"));
  EXPECT_TRUE(has(t, "3x  print() of a traced array"));
  EXPECT_TRUE(has(t, "at a.py:5 in f"));
  EXPECT_TRUE(has(t, "x: dtype float64 -> float32"));
  EXPECT_TRUE(has(t, "kern_exp"));
  EXPECT_TRUE(has(t, "2.40× speedup over eager NumPy"));
  // Columns line up: the header's "runs" ends where the numbers end.
  const auto hdr = t.find("  kernel ");
  ASSERT_NE(hdr, std::string::npos);
  const auto line_end = t.find('\n', hdr);
  const auto row = line_end + 1, row_end = t.find('\n', row);
  const std::string header = t.substr(hdr, line_end - hdr), first = t.substr(row, row_end - row);
  EXPECT_EQ(header.find("runs") + 4, first.find(" 3 ") + 2) << header << "\n" << first;
}

TEST(CodeHighlighter, Cpp) {
  using L = CodeHighlighter::Language;
  const std::string h = CodeHighlighter::highlight(
      "#include <x>\nfor (int i = 0; i < 1.5e-3f; ++i) /* c */ s = \"a<b\"; // done", L::Cpp);
  EXPECT_TRUE(has(h, "<span class=\"npc-hp\">#include &lt;x&gt;</span>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-hk\">for</span>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-ht\">int</span>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-hn\">1.5e-3f</span>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-hc\">/* c */</span>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-hs\">&quot;a&lt;b&quot;</span>"));
  EXPECT_TRUE(has(h, "<span class=\"npc-hc\">// done</span>"));
  EXPECT_TRUE(has(h, " i &lt; "));
  EXPECT_FALSE(has(h, "<x>"));
}

TEST(CodeHighlighter, PythonAndPtx) {
  using L = CodeHighlighter::Language;
  const std::string py = CodeHighlighter::highlight("if x > 0: return np.sum(x)  # hi", L::Python);
  EXPECT_TRUE(has(py, "<span class=\"npc-hk\">if</span>"));
  EXPECT_TRUE(has(py, "<span class=\"npc-hc\"># hi</span>"));
  EXPECT_TRUE(has(py, " &gt; "));
  const std::string ptx = CodeHighlighter::highlight(".reg .f64 %fd<4>; // r", L::Ptx);
  EXPECT_TRUE(has(ptx, "<span class=\"npc-hp\">.reg</span>"));
  EXPECT_TRUE(has(ptx, "<span class=\"npc-ht\">%fd</span>&lt;"));
  // Unterminated things end at the end, never read past it.
  EXPECT_TRUE(has(CodeHighlighter::highlight("/* open", L::Cpp), "/* open</span>"));
  EXPECT_TRUE(has(CodeHighlighter::highlight("\"open", L::Cpp), "&quot;open</span>"));
  EXPECT_EQ(CodeHighlighter::highlight("", L::Cpp), "");
}

TEST(HtmlEscape, AllFive) {
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(FusionGraphSvg, BadGraphsDoNotHang) {
  // A cycle and dangling inputs: still a picture.
  FusionGraph g{1, {{0, "a", "", 0, {1, 99}}, {1, "b", "", 0, {0}}, {1, "dup", "", 2, {}}}, {}};
  const std::string svg = FusionGraphSvg::render(g, "t");
  EXPECT_TRUE(svg.starts_with("<svg"));
  EXPECT_TRUE(svg.ends_with("</svg>"));
  EXPECT_FALSE(has(svg, "dup"));
}
} // namespace
} // namespace npc::prof

TEST(SourceLocation, NamesANotebookCellAsIpykernelDoes) {
  EXPECT_EQ(npc::prof::source_location("<In [4]>", 6), "In [4], line 6");
  EXPECT_EQ(npc::prof::source_location("<In [12]>", 0), "In [12]");
  EXPECT_EQ(npc::prof::source_location("a.py", 5), "a.py:5");
  EXPECT_EQ(npc::prof::source_location("<npcompile cell 3>", 2), "<npcompile cell 3>:2");
  EXPECT_EQ(npc::prof::source_location("", 7), "line 7");
}
