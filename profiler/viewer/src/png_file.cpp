#include "npc/viewer/png_file.hpp"

#include <stb_image_write.h>
#include <stdexcept>
#include <string>

#include "npc/prof/atomic_write.hpp"

namespace npc::viewer {
namespace {
void append(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                             static_cast<std::size_t>(size));
}
} // namespace

void write_png(const std::filesystem::path& path, int width, int height,
               const std::vector<std::uint8_t>& rgba) {
  if (width <= 0 || height <= 0 ||
      rgba.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4)
    throw std::invalid_argument("write_png: " + std::to_string(rgba.size()) +
                                " bytes are not " + std::to_string(width) + "x" +
                                std::to_string(height) + " RGBA pixels");
  std::string png;
  if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), width * 4))
    throw std::runtime_error("write_png: encoding failed");
  prof::atomic_write(path, png);
}
} // namespace npc::viewer
