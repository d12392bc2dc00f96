// Two reports compared: headline numbers and their verdicts, functions matched by name,
// breaks matched by reason and line text whatever line they moved to.
#include <gtest/gtest.h>

#include "npc/viewer/session_comparison.hpp"

namespace npc::viewer {
namespace {
prof::Report report(double kernel_ms, std::int64_t breaks, std::int64_t lineno) {
  prof::Report r;
  r.summary.traces = 10;
  r.summary.graph_breaks = breaks;
  r.summary.run_ms = kernel_ms;
  r.summary.compile_ms = 50;
  r.traces = {{"Model.step", 1, breaks > 0 ? 1 : 0}, {"Model.step", 1, 0}};
  r.compiles.push_back({});
  r.compiles.back().graph_id = 1;
  r.compiles.back().function = "Model.step";
  r.compiles.back().total_ms = 50;
  prof::KernelSummary k;
  k.name = "npc_1";
  k.graph_id = 1;
  k.total_ms = kernel_ms;
  r.kernels.push_back(k);
  if (breaks > 0)
    r.breaks.push_back({"bool() of an array value", "f.py", lineno, "", "step", "if y.sum() > 0:",
                        breaks});
  r.breaks.push_back({"float() of an array value", "f.py", lineno + 5, "", "step", "t = float(x)", 2});
  return r;
}

TEST(SessionComparison, NumbersFunctionsAndBreaks) {
  const auto c = SessionComparison::of(report(8.0, 3, 10), report(2.0, 0, 14));
  const auto& kernel = *std::find_if(c.summary.begin(), c.summary.end(),
                                     [](const auto& n) { return n.what == "kernel time"; });
  EXPECT_EQ(change_of(kernel), Change::better);
  EXPECT_EQ(change_text(kernel.before, kernel.after), "-75% (4.0x less)");
  const auto& compile = *std::find_if(c.summary.begin(), c.summary.end(),
                                      [](const auto& n) { return n.what == "compile time"; });
  EXPECT_EQ(change_of(compile), Change::same);
  ASSERT_EQ(c.functions.size(), 1u);
  EXPECT_EQ(c.functions[0].function, "Model.step"); // its breaks name the frame's `step`
  EXPECT_EQ(c.functions[0].calls_before, 2);
  EXPECT_DOUBLE_EQ(c.functions[0].kernel_ms_before, 8.0);
  EXPECT_DOUBLE_EQ(c.functions[0].kernel_ms_after, 2.0);
  EXPECT_EQ(c.functions[0].breaks_before, 5);
  EXPECT_EQ(c.functions[0].breaks_after, 2);
  ASSERT_EQ(c.breaks.size(), 2u);
  EXPECT_EQ(c.breaks[0].verdict(), "fixed"); // first, and matched across moved lines
  EXPECT_EQ(c.breaks[0].code, "if y.sum() > 0:");
  EXPECT_EQ(c.breaks[1].verdict(), "same");
  EXPECT_EQ(c.breaks[1].where, "f.py:19");
  const auto back = SessionComparison::of(report(2.0, 0, 14), report(8.0, 3, 10));
  EXPECT_EQ(back.breaks[0].verdict(), "new");
  EXPECT_EQ(change_of(back.summary[4]), Change::worse); // graph breaks 0 -> 3
}

TEST(SessionComparison, ChangeInWords) {
  EXPECT_EQ(change_text(0, 0), "same");
  EXPECT_EQ(change_text(0, 3), "new");
  EXPECT_EQ(change_text(4, 0), "-100% (gone)");
  EXPECT_EQ(change_text(10, 11.5), "+15%");
  EXPECT_EQ(change_text(1, 3), "+200% (3.0x more)");
  EXPECT_EQ(change_of({"x", 100, 101, true, false}), Change::same);
  EXPECT_EQ(change_of({"speedup", 2, 3, false, false}), Change::better);
}
} // namespace
} // namespace npc::viewer
