#include "Tokens.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <unordered_map>

using namespace npc::trace;

namespace {

TEST(Tokens, FloatBitsTellSignedZerosApart) {
  EXPECT_NE(bits_of(0.0), bits_of(-0.0));
  EXPECT_EQ(bits_of(1.5), bits_of(1.5));
  EXPECT_EQ(bits_of(std::nan("")), bits_of(std::nan("")));
}

TEST(Tokens, HashFollowsContentAndLength) {
  TokensHash h;
  EXPECT_EQ(h(Tokens{kInt, 1}), h(Tokens{kInt, 1}));
  EXPECT_NE(h(Tokens{kInt, 1}), h(Tokens{kBool, 1}));
  EXPECT_NE(h(Tokens{}), h(Tokens{0}));
  EXPECT_NE(h(Tokens{1, 2}), h(Tokens{2, 1}));
}

TEST(Tokens, KeysOfAMap) {
  std::unordered_map<Tokens, int, TokensHash> m;
  m[{kFloat, bits_of(2.0)}] = 1;
  m[{kInt, 2}] = 2;
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ((m[{kFloat, bits_of(2.0)}]), 1);
}

} // namespace
