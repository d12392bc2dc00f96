#include "npc/prof/code_highlighter.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "npc/prof/html_escape.hpp"

namespace npc::prof {
namespace {
using Lang = CodeHighlighter::Language;

constexpr std::string_view kCppKeywords[] = {"alignas",     "alignof",
                                             "asm",         "auto",
                                             "break",       "case",
                                             "catch",       "class",
                                             "const",       "consteval",
                                             "constexpr",   "constinit",
                                             "continue",    "decltype",
                                             "default",     "delete",
                                             "do",          "else",
                                             "enum",        "explicit",
                                             "extern",      "false",
                                             "for",         "friend",
                                             "goto",        "if",
                                             "inline",      "mutable",
                                             "namespace",   "new",
                                             "noexcept",    "nullptr",
                                             "operator",    "private",
                                             "protected",   "public",
                                             "register",    "restrict",
                                             "__restrict",  "__restrict__",
                                             "return",      "sizeof",
                                             "static",      "static_assert",
                                             "static_cast", "reinterpret_cast",
                                             "struct",      "switch",
                                             "template",    "this",
                                             "throw",       "true",
                                             "try",         "typedef",
                                             "typename",    "union",
                                             "using",       "virtual",
                                             "volatile",    "while",
                                             "__global__",  "__device__"};
constexpr std::string_view kCppTypes[] = {"void",
                                          "bool",
                                          "char",
                                          "short",
                                          "int",
                                          "long",
                                          "float",
                                          "double",
                                          "signed",
                                          "unsigned",
                                          "size_t",
                                          "ptrdiff_t",
                                          "int8_t",
                                          "int16_t",
                                          "int32_t",
                                          "int64_t",
                                          "uint8_t",
                                          "uint16_t",
                                          "uint32_t",
                                          "uint64_t",
                                          "intptr_t",
                                          "half",
                                          "__half",
                                          "float2",
                                          "float4",
                                          "double2",
                                          "dim3",
                                          "__shared__",
                                          "__constant__",
                                          "__host__",
                                          "__forceinline__",
                                          "__launch_bounds__",
                                          "threadIdx",
                                          "blockIdx",
                                          "blockDim",
                                          "gridDim"};
constexpr std::string_view kPyKeywords[] = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
constexpr std::string_view kPyTypes[] = {"int",   "float", "bool",  "complex", "len", "print",
                                         "range", "np",    "numpy", "self",    "str", "list"};

template <std::size_t N> bool in(const std::string_view (&set)[N], std::string_view w) {
  return std::find(std::begin(set), std::end(set), w) != std::end(set);
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Appends a run; plain runs merge (the runs are contiguous, so extending is enough).
void push(std::vector<CodeHighlighter::Token>& out, std::string_view all, char kind,
          std::size_t begin, std::size_t end) {
  if (kind == 0 && !out.empty() && out.back().kind == 0) {
    out.back().text = {out.back().text.data(), out.back().text.size() + (end - begin)};
    return;
  }
  out.push_back({kind, all.substr(begin, end - begin)});
}

// End of a string literal starting at i (the quote), honouring backslash escapes.
std::size_t string_end(std::string_view s, std::size_t i) {
  const char q = s[i];
  std::size_t j = i + 1;
  while (j < s.size() && s[j] != q && s[j] != '\n')
    j += (s[j] == '\\' && j + 1 < s.size()) ? 2 : 1;
  return std::min(s.size(), j + 1);
}

std::size_t number_end(std::string_view s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size()) {
    char c = s[j];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '\'' || c == '_') {
      ++j;
    } else if ((c == '+' || c == '-') && j > i &&
               (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P') &&
               !(s[i] == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
                 (s[j - 1] == 'e' || s[j - 1] == 'E'))) {
      ++j;
    } else {
      break;
    }
  }
  return j;
}
} // namespace

std::vector<CodeHighlighter::Token> CodeHighlighter::tokens(std::string_view s, Language lang) {
  std::vector<Token> out;
  const bool py = lang == Lang::Python;
  bool line_start = true; // only whitespace so far on this line
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char n = i + 1 < s.size() ? s[i + 1] : '\0';
    std::size_t j = i + 1;
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r') {
      push(out, s, 0, i, i + 1);
      line_start = line_start || c == '\n';
      ++i;
      continue;
    }
    if (!py && c == '/' && n == '/') {
      j = s.find('\n', i);
      if (j == std::string_view::npos)
        j = s.size();
      push(out, s, 'c', i, j);
    } else if (!py && c == '/' && n == '*') {
      j = s.find("*/", i + 2);
      j = j == std::string_view::npos ? s.size() : j + 2;
      push(out, s, 'c', i, j);
    } else if (py && c == '#') {
      j = s.find('\n', i);
      if (j == std::string_view::npos)
        j = s.size();
      push(out, s, 'c', i, j);
    } else if (lang == Lang::Cpp && c == '#' && line_start) {
      // Preprocessor line, up to a comment or the end of the line.
      j = i;
      while (j < s.size() && s[j] != '\n' &&
             !(s[j] == '/' && j + 1 < s.size() && (s[j + 1] == '/' || s[j + 1] == '*')))
        ++j;
      push(out, s, 'p', i, j);
    } else if (c == '"' || (c == '\'' && lang != Lang::Ptx)) {
      j = string_end(s, i);
      push(out, s, 's', i, j);
    } else if (digit(c) || (c == '.' && digit(n))) {
      j = number_end(s, i);
      push(out, s, 'n', i, j);
    } else if (lang == Lang::Ptx && (c == '.' || c == '%') && (ident_start(n) || digit(n))) {
      j = i + 1;
      while (j < s.size() && (ident_char(s[j]) || s[j] == '.'))
        ++j;
      push(out, s, c == '.' ? 'p' : 't', i, j);
    } else if (ident_start(c)) {
      j = i;
      while (j < s.size() && ident_char(s[j]))
        ++j;
      const auto w = s.substr(i, j - i);
      bool kw = false, ty = false;
      if (lang == Lang::Cpp) {
        kw = in(kCppKeywords, w);
        ty = in(kCppTypes, w);
      } else if (py) {
        kw = in(kPyKeywords, w);
        ty = in(kPyTypes, w);
      }
      push(out, s, kw ? 'k' : ty ? 't' : 0, i, j);
    } else {
      push(out, s, 0, i, i + 1);
    }
    line_start = false;
    i = j;
  }
  return out;
}

std::string CodeHighlighter::highlight(std::string_view s, Language lang) {
  std::string out;
  out.reserve(s.size() * 3 / 2);
  for (const auto& t : tokens(s, lang)) {
    if (t.kind == 0) {
      html_escape_to(out, t.text);
      continue;
    }
    out += "<span class=\"npc-h";
    out += t.kind;
    out += "\">";
    html_escape_to(out, t.text);
    out += "</span>";
  }
  return out;
}
} // namespace npc::prof
