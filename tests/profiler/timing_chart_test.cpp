#include <gtest/gtest.h>

#include "npc/prof/code_highlighter.hpp"
#include "npc/prof/timing_chart.hpp"

namespace npc::prof {
namespace {
KernelSummary kernel(const char* name, std::int64_t runs, double total) {
  KernelSummary k;
  k.name = name;
  k.runs = runs;
  k.total_ms = total;
  k.median_ms = runs ? total / static_cast<double>(runs) : 0;
  return k;
}

TEST(TimingChart, SlowestFirstOnlyKernelsThatRan) {
  const std::vector<KernelSummary> ks{kernel("a", 2, 1.0), kernel("never", 0, 0.0),
                                      kernel("b", 1, 3.0), kernel("c", 4, 2.0)};
  const auto c = TimingChart::of(ks);
  EXPECT_EQ(c.rows, (std::vector<std::size_t>{2, 3, 0}));
  EXPECT_DOUBLE_EQ(c.max_ms, 3.0);
  EXPECT_DOUBLE_EQ(c.step_ms, 1.0); // 1, 2 or 5 times a power of ten, about 4 ticks
  EXPECT_EQ(TimingChart::bar_label(ks[0]), "1.00 ms · 2 runs · median 0.500 ms");
  EXPECT_NE(TimingChart::details(ks[2]).find("b: 1 runs, total 3.00 ms"), std::string::npos);
}

TEST(TimingChart, CapsBarsAndHandlesZeroTime) {
  std::vector<KernelSummary> ks;
  for (int i = 0; i < 50; ++i)
    ks.push_back(kernel("k", 1, 0.0));
  const auto c = TimingChart::of(ks);
  EXPECT_EQ(c.rows.size(), TimingChart::kMaxBars);
  EXPECT_DOUBLE_EQ(c.max_ms, 1.0);
  EXPECT_TRUE(TimingChart::of({}).rows.empty());
}

TEST(CodeHighlighter, TokensCoverTheCodeExactly) {
  const std::string code = "#include <x>\nfor (int i = 0; i < n; ++i) /* a\nb */ s += \"q\";\n";
  const auto toks = CodeHighlighter::tokens(code, CodeHighlighter::Language::Cpp);
  std::string joined;
  std::string kinds;
  for (const auto& t : toks) {
    joined += t.text;
    if (t.kind)
      kinds += t.kind;
  }
  EXPECT_EQ(joined, code);
  EXPECT_EQ(kinds, "pktncs"); // #include, for, int, 0, ... comment, string
  for (std::size_t i = 1; i < toks.size(); ++i) // plain runs are merged
    EXPECT_FALSE(toks[i].kind == 0 && toks[i - 1].kind == 0);
}
} // namespace
} // namespace npc::prof
