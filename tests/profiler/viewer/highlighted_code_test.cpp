#include "npc/viewer/highlighted_code.hpp"

#include <gtest/gtest.h>

namespace npc::viewer {
namespace {
using Lang = prof::CodeHighlighter::Language;

std::string line_text(const HighlightedCode& h, std::size_t i) {
  std::string s;
  for (const auto& r : h.lines()[i])
    s += h.run_text(r);
  return s;
}

TEST(HighlightedCode, CutsRunsAtNewlines) {
  const auto h = HighlightedCode::of("int a; /* one\ntwo */ b\n\nfor", Lang::Cpp);
  ASSERT_EQ(h.lines().size(), 4u);
  EXPECT_EQ(line_text(h, 0), "int a; /* one");
  EXPECT_EQ(line_text(h, 1), "two */ b");
  EXPECT_EQ(line_text(h, 2), "");
  EXPECT_EQ(line_text(h, 3), "for");
  EXPECT_EQ(h.lines()[0].front().kind, 't');
  EXPECT_EQ(h.lines()[1].front().kind, 'c'); // the comment goes on across the line
  EXPECT_EQ(h.lines()[3].front().kind, 'k');
  EXPECT_EQ(h.longest_line(), 13u);
}

TEST(HighlightedCode, FinalNewlineAddsNoLineAndCopiesStayValid) {
  auto h = HighlightedCode::of("x = 1;\n", Lang::Cpp);
  const auto copy = h; // offsets, not pointers: a copy reads its own text
  h = HighlightedCode::of("y", Lang::Cpp);
  ASSERT_EQ(copy.lines().size(), 1u);
  EXPECT_EQ(line_text(copy, 0), "x = 1;");
  EXPECT_EQ(HighlightedCode::of("", Lang::Cpp).lines().size(), 1u);
}
} // namespace
} // namespace npc::viewer
