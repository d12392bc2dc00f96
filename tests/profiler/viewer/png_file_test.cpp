#include "npc/viewer/png_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

namespace npc::viewer {
namespace {
std::uint32_t be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

TEST(PngFile, WritesAPngOfTheGivenSize) {
  const auto path = std::filesystem::temp_directory_path() / "npc_viewer_png_test.png";
  std::vector<std::uint8_t> px(5 * 3 * 4, 0xff);
  px[0] = 0; // one red-less pixel
  write_png(path, 5, 3, px);
  std::ifstream in(path, std::ios::binary);
  const std::string s{std::istreambuf_iterator<char>(in), {}};
  ASSERT_GT(s.size(), 33u);
  EXPECT_EQ(s.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(s.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(s, 16), 5u);
  EXPECT_EQ(be32(s, 20), 3u);
  EXPECT_EQ(s[25], 6); // colour type RGBA
  EXPECT_NE(s.find("IEND"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(PngFile, RejectsAWrongPixelCount) {
  EXPECT_THROW(write_png("unused.png", 4, 4, std::vector<std::uint8_t>(10)),
               std::invalid_argument);
}
} // namespace
} // namespace npc::viewer
