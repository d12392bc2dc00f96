#pragma once
// Columns aligned by display width (UTF-8 aware), for the text report.
#include <string>
#include <vector>

namespace npc::prof {
class TextTable {
public:
  // `right[i]` right-aligns column i (numbers).
  TextTable(std::vector<std::string> header, std::vector<bool> right);
  void add(std::vector<std::string> row);
  bool empty() const { return rows_.empty(); }
  // Each line starts with `indent`; no trailing spaces.
  std::string str(const std::string& indent = "  ") const;

private:
  std::vector<std::string> header_{};
  std::vector<bool> right_{};
  std::vector<std::vector<std::string>> rows_{};
};
} // namespace npc::prof
