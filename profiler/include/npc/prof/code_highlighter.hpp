#pragma once
// Lightweight syntax highlighting for the code a report shows: the generated C++ / CUDA C,
// PTX, and the user's Python lines. Output is HTML-escaped text with <span class="npc-h?">
// around keywords (k), types (t), numbers (n), comments (c), strings (s) and preprocessor
// lines or PTX directives (p). A tokenizer, not a parser: it only has to look right.
#include <string>
#include <string_view>

namespace npc::prof {
class CodeHighlighter {
public:
  enum class Language { Cpp, Ptx, Python };
  static std::string highlight(std::string_view code, Language lang);
};
} // namespace npc::prof
