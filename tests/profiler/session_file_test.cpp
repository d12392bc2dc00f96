#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <unistd.h>

#include "npc/prof/schema.hpp"
#include "npc/prof/session_file.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
TEST(SessionFile, NamedByPidAndStartWrittenWhole) {
  Session s;
  test::fill_sample(s);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("npc-prof-sf-" + std::to_string(::getpid())) / "nested";
  const auto path = write_session_file(s, dir);
  EXPECT_EQ(path.parent_path(), dir);
  EXPECT_TRUE(std::regex_match(
      path.filename().string(),
      std::regex("npcompile-" + std::to_string(::getpid()) + "-[0-9]{8}T[0-9]{6}Z\\.json")))
      << path;
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["schema"], kSchemaName);
  EXPECT_EQ(j["version"], kSchemaVersion);
  Session back;
  j.get_to(back);
  EXPECT_EQ(back.snapshot(), s.snapshot());
  // Rewriting replaces it; no temporary files stay behind.
  s.append(Event{1000, 1, GraphBreak{.reason = "later"}});
  EXPECT_EQ(write_session_file(s, dir), path);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    (void)e, ++files;
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(dir.parent_path());
}

TEST(SessionFile, UnderAGivenPlainName) {
  Session s;
  test::fill_sample(s);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("npc-prof-sfn-" + std::to_string(::getpid()));
  const auto path = write_session_file(s, dir, "npcompile-session-abc.json");
  EXPECT_EQ(path, dir / "npcompile-session-abc.json");
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in)["events"].size(), s.size());
  for (const char* bad : {"", "..", "sub/x.json", "/tmp/x.json"})
    EXPECT_THROW(write_session_file(s, dir, bad), std::invalid_argument) << bad;
  std::filesystem::remove_all(dir);
}
} // namespace
} // namespace npc::prof
