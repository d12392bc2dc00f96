#include "npc/prof/file_text.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace npc::prof {
std::string read_file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace npc::prof
