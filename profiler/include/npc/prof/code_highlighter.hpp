#pragma once
// Lightweight syntax highlighting for the code a report shows: the generated C++ / CUDA C,
// PTX, and the user's Python lines. Output is HTML-escaped text with <span class="npc-h?">
// around keywords (k), types (t), numbers (n), comments (c), strings (s) and preprocessor
// lines or PTX directives (p). A tokenizer, not a parser: it only has to look right.
#include <string>
#include <string_view>
#include <vector>

namespace npc::prof {
class CodeHighlighter {
public:
  enum class Language { Cpp, Ptx, Python };
  // One run of the code: `kind` is one of k t n c s p, or 0 for plain text (identifiers,
  // punctuation, whitespace, newlines). The runs cover the code exactly, in order.
  struct Token {
    char kind = 0;
    std::string_view text{};
  };
  // The tokenizer both the HTML report and the desktop viewer colour their code with.
  static std::vector<Token> tokens(std::string_view code, Language lang);
  static std::string highlight(std::string_view code, Language lang);
};
} // namespace npc::prof
