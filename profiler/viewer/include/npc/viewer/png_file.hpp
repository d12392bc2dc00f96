#pragma once
// Writes a screenshot: 8-bit RGBA pixels, rows top to bottom, as a PNG (stb_image_write from
// Debian's libstb), atomically.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace npc::viewer {
// Throws std::invalid_argument when the pixel count does not match, std::runtime_error when
// encoding or writing fails.
void write_png(const std::filesystem::path& path, int width, int height,
               const std::vector<std::uint8_t>& rgba);
} // namespace npc::viewer
