#pragma once
// Generated source cut into lines of coloured runs, ready to draw line by line (the code
// view draws only the visible lines of long kernels). Runs are offsets into the owned text,
// so the object can be moved and copied freely.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "npc/prof/code_highlighter.hpp"

namespace npc::viewer {
struct CodeRun {
  char kind = 0; // CodeHighlighter's token kinds: k t n c s p, 0 for plain
  std::uint32_t begin = 0;
  std::uint32_t size = 0;
};

class HighlightedCode {
public:
  HighlightedCode() = default;
  static HighlightedCode of(std::string text, prof::CodeHighlighter::Language lang);

  const std::string& text() const { return text_; }
  const std::vector<std::vector<CodeRun>>& lines() const { return lines_; }
  std::string_view run_text(const CodeRun& r) const { return {text_.data() + r.begin, r.size}; }
  std::size_t longest_line() const { return longest_; } // in bytes, for the scroll width

private:
  std::string text_{};
  std::vector<std::vector<CodeRun>> lines_{};
  std::size_t longest_ = 0;
};
} // namespace npc::viewer
