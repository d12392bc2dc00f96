#include "npc/prof/source_location.hpp"

namespace npc::prof {
std::string source_location(const std::string& file, std::int64_t line) {
  if (file.empty())
    return line > 0 ? "line " + std::to_string(line) : "";
  // a notebook cell (npcompile/cell_names.py names it "<In [n]>"): said as ipykernel's
  // tracebacks say it, "In [4], line 6"
  if (file.size() > 6 && file.starts_with("<In [") && file.ends_with("]>"))
    return line > 0 ? file.substr(1, file.size() - 2) + ", line " + std::to_string(line)
                    : file.substr(1, file.size() - 2);
  return line > 0 ? file + ":" + std::to_string(line) : file;
}
} // namespace npc::prof
