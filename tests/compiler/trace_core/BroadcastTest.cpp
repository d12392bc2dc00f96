#include "Broadcast.hpp"

#include <gtest/gtest.h>

#include <vector>

using npc::trace::broadcast;
using npc::trace::Shape;

namespace {

std::optional<Shape> of(std::vector<Shape> shapes) { return broadcast(shapes); }

TEST(Broadcast, EqualShapesStay) { EXPECT_EQ(of({{3, 4}, {3, 4}}), Shape({3, 4})); }

TEST(Broadcast, OnesStretch) {
  EXPECT_EQ(of({{3, 1}, {1, 4}}), Shape({3, 4}));
  EXPECT_EQ(of({{1}, {5}}), Shape({5}));
}

TEST(Broadcast, ShorterShapesAlignOnTheRight) {
  EXPECT_EQ(of({{2, 3, 4}, {4}}), Shape({2, 3, 4}));
  EXPECT_EQ(of({{}, {7, 2}}), Shape({7, 2}));
}

TEST(Broadcast, ZeroSizedDimensions) {
  EXPECT_EQ(of({{0}, {1}}), Shape({0}));
  EXPECT_EQ(of({{0, 3}, {3}}), Shape({0, 3}));
  EXPECT_FALSE(of({{0}, {2}}));
}

TEST(Broadcast, MismatchIsNothing) {
  EXPECT_FALSE(of({{3}, {4}}));
  EXPECT_FALSE(of({{2, 3}, {3, 2}}));
}

TEST(Broadcast, ScalarsAndNone) {
  EXPECT_EQ(of({{}, {}}), Shape({}));
  EXPECT_EQ(of({}), Shape({}));
}

} // namespace
