#include "npc/viewer/session_source.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

namespace npc::viewer {
namespace {
namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() /
                  ("npc_viewer_src_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                   "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text, int age_s) {
  std::ofstream(p) << text;
  fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::seconds(age_s));
}

TEST(SessionSource, NewestSessionFileInAFolder) {
  TempDir d;
  write(d.path / "npcompile-1-old.json", "{}", 100);
  write(d.path / "npcompile-session-abc.json", "{}", 10);
  write(d.path / "kernel-abc.json", "{}", 0); // a connection file: not a session
  write(d.path / "npcompile-2-notes.txt", "", 0);
  EXPECT_EQ(SessionSource::newest_session(d.path), d.path / "npcompile-session-abc.json");
  EXPECT_EQ(SessionSource::newest_session(d.path / "missing"), fs::path());
}

TEST(SessionSource, PollSeesNewFilesAndChanges) {
  TempDir d;
  SessionSource src(d.path);
  EXPECT_FALSE(src.poll()); // nothing yet
  write(d.path / "npcompile-1.json", "{}", 50);
  EXPECT_TRUE(src.poll());
  EXPECT_FALSE(src.poll()); // unchanged
  write(d.path / "npcompile-1.json", "{\"a\": 1}", 40);
  EXPECT_TRUE(src.poll());
  write(d.path / "npcompile-2.json", "{}", 5); // a newer kernel's session
  EXPECT_TRUE(src.poll());
  EXPECT_EQ(src.current(), d.path / "npcompile-2.json");
}

TEST(SessionSource, AFileAsGiven) {
  TempDir d;
  const auto f = d.path / "any-name.json";
  SessionSource src(f);
  EXPECT_EQ(src.current(), fs::path());
  write(f, "{}", 1);
  EXPECT_EQ(src.current(), f);
  EXPECT_TRUE(src.poll());
}
} // namespace
} // namespace npc::viewer
