#include "npc/viewer/viewer_options.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace npc::viewer {
namespace {
TEST(ViewerOptions, PathScreenshotAndSize) {
  const auto o = ViewerOptions::parse({"s.json", "--screenshot", "out.png", "--size", "800x600"});
  EXPECT_EQ(o.path, "s.json");
  EXPECT_EQ(o.screenshot, "out.png");
  EXPECT_EQ(o.width, 800);
  EXPECT_EQ(o.height, 600);
  EXPECT_TRUE(ViewerOptions::parse({"--help"}).help);
  EXPECT_EQ(o.frames, 0);
  EXPECT_EQ(ViewerOptions::parse({"--screenshot", "o.png", "--frames", "120"}).frames, 120);
}

TEST(ViewerOptions, BadCommandLinesSayWhy) {
  auto fails = [](std::vector<std::string> args, const std::string& says) {
    try {
      ViewerOptions::parse(args);
      ADD_FAILURE() << "accepted " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  fails({"--screenshot"}, "--screenshot needs a value");
  fails({"--size", "800"}, "WIDTHxHEIGHT");
  fails({"--size", "10x600"}, "bad width");
  fails({"--size", "800xabc"}, "bad height");
  fails({"--frobnicate"}, "unknown option");
  fails({"a.json", "b.json"}, "one session file");
  fails({"--frames", "0"}, "bad --frames");
  fails({"--frames", "many"}, "bad --frames");
}

TEST(ViewerOptions, DefaultsToTheJupyterRuntimeFolder) {
  ::setenv("JUPYTER_RUNTIME_DIR", "/tmp/npc-rt", 1);
  EXPECT_EQ(ViewerOptions::parse({}).path, "/tmp/npc-rt");
  ::unsetenv("JUPYTER_RUNTIME_DIR");
  ::setenv("JUPYTER_DATA_DIR", "/tmp/npc-data", 1);
  EXPECT_EQ(jupyter_runtime_dir(), "/tmp/npc-data/runtime");
  ::unsetenv("JUPYTER_DATA_DIR");
}
} // namespace
} // namespace npc::viewer
