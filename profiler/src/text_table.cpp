#include "npc/prof/text_table.hpp"

#include <algorithm>

namespace npc::prof {
namespace {
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    w += (c & 0xC0) != 0x80;
  return w;
}
} // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right)
    : header_(std::move(header)), right_(std::move(right)) {
  right_.resize(header_.size(), false);
}

void TextTable::add(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string TextTable::str(const std::string& indent) const {
  std::vector<std::size_t> w(header_.size(), 0);
  for (std::size_t i = 0; i < header_.size(); ++i)
    w[i] = width(header_[i]);
  for (const auto& r : rows_)
    for (std::size_t i = 0; i < r.size(); ++i)
      w[i] = std::max(w[i], width(r[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& r) {
    std::string l = indent;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(w[i] - width(r[i]), ' ');
      l += right_[i] ? pad + r[i] : r[i] + (i + 1 < r.size() ? pad : "");
      if (i + 1 < r.size())
        l += "  ";
    }
    while (!l.empty() && l.back() == ' ')
      l.pop_back();
    out += l + "\n";
  };
  line(header_);
  for (const auto& r : rows_)
    line(r);
  return out;
}
} // namespace npc::prof
