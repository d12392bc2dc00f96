#include "npc/viewer/highlighted_code.hpp"

#include <algorithm>

namespace npc::viewer {
HighlightedCode HighlightedCode::of(std::string text, prof::CodeHighlighter::Language lang) {
  HighlightedCode h;
  h.text_ = std::move(text);
  const std::string_view all = h.text_;
  h.lines_.emplace_back();
  std::size_t line_bytes = 0;
  for (const auto& tok : prof::CodeHighlighter::tokens(all, lang)) {
    auto at = static_cast<std::size_t>(tok.text.data() - all.data());
    const auto end = at + tok.text.size();
    // A run may hold newlines (plain whitespace, block comments): cut it at each.
    while (at < end) {
      const auto nl = all.find('\n', at);
      const auto stop = nl == std::string_view::npos ? end : std::min(nl, end);
      if (stop > at) {
        h.lines_.back().push_back(
            {tok.kind, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(stop - at)});
        line_bytes += stop - at;
      }
      if (stop < end) { // the newline itself
        h.longest_ = std::max(h.longest_, line_bytes);
        line_bytes = 0;
        h.lines_.emplace_back();
      }
      at = stop + (stop < end ? 1 : 0);
    }
  }
  h.longest_ = std::max(h.longest_, line_bytes);
  if (h.lines_.size() > 1 && h.lines_.back().empty()) // a final newline ends the last line
    h.lines_.pop_back();
  return h;
}
} // namespace npc::viewer
