#include "npc/viewer/guard_diff.hpp"

#include <gtest/gtest.h>

namespace npc::viewer {
namespace {
TEST(GuardDiff, SplitsFailedGuardsIntoBeforeAndAfter) {
  const auto d = guard_diffs("x: dtype float64 -> float32; y: shape[0] 10 -> 20, now dynamic");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0], (GuardDiff{"x: dtype", "float64", "float32"}));
  EXPECT_EQ(d[1], (GuardDiff{"y: shape[0]", "10", "20, now dynamic"}));
}

TEST(GuardDiff, TextWithoutAnArrowStaysWhole) {
  const auto d = guard_diffs("graph changed");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], (GuardDiff{"graph changed", "", ""}));
  EXPECT_EQ(guard_diffs("3 -> 4")[0], (GuardDiff{"", "3", "4"}));
  EXPECT_TRUE(guard_diffs("").empty());
  EXPECT_TRUE(guard_diffs(" ; ").empty());
}
} // namespace
} // namespace npc::viewer
