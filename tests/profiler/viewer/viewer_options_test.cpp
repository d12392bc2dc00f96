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

TEST(ViewerOptions, AttachWithOrWithoutAFileAndATunnelsPort) {
  const auto bare = ViewerOptions::parse({"--attach"});
  EXPECT_TRUE(bare.attach);
  EXPECT_TRUE(bare.attach_path.empty()); // the newest running kernel
  const auto o = ViewerOptions::parse({"--attach", "kernel-1.json", "--port", "9000", "--host",
                                       "127.0.0.1", "--screenshot", "x.png", "--wait-events",
                                       "12", "--timeout", "30"});
  EXPECT_EQ(o.attach_path, "kernel-1.json");
  EXPECT_EQ(o.port, 9000);
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.wait_events, 12);
  EXPECT_EQ(o.timeout_s, 30);
  EXPECT_TRUE(ViewerOptions::parse({"--attach", "--port", "9000"}).attach_path.empty());
  EXPECT_THROW(ViewerOptions::parse({"--port", "9000"}), std::invalid_argument);
  EXPECT_THROW(ViewerOptions::parse({"--attach", "--port", "70000"}), std::invalid_argument);
  EXPECT_THROW(ViewerOptions::parse({"s.json", "--attach", "k.json"}), std::invalid_argument);
}

TEST(ViewerOptions, CompareTakesTwoFiles) {
  const auto o = ViewerOptions::parse({"--compare", "before.json", "after.json"});
  EXPECT_EQ(o.compare, "before.json");
  EXPECT_EQ(o.path, "after.json");
  EXPECT_THROW(ViewerOptions::parse({"--compare", "a.json"}), std::invalid_argument);
  EXPECT_THROW(ViewerOptions::parse({"x.json", "--compare", "a.json", "b.json"}),
               std::invalid_argument);
  EXPECT_THROW(ViewerOptions::parse({"--compare", "a.json", "b.json", "--attach"}),
               std::invalid_argument);
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
