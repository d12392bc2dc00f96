#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "npc/prof/chrome_trace.hpp"
#include "npc/prof/schema.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

std::vector<json> with(const json& trace, const std::string& ph, const std::string& cat) {
  std::vector<json> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == ph && e.value("cat", "") == cat)
      out.push_back(e);
  return out;
}

TEST(ChromeTrace, ValidJsonWithCompleteAndInstantEvents) {
  Session s;
  test::fill_sample(s);
  s.append(Event{95, 1, Fallback{"codegen failed", 0, "complex64"}});
  s.append(Event{96, 2, Transfer{"d2h", 1024, 0.002}});
  const json t = json::parse(chrome_trace_json(s)); // throws if not valid JSON
  EXPECT_EQ(t["schema"], kSchemaName);
  EXPECT_EQ(t["version"], kSchemaVersion);
  ASSERT_TRUE(t["traceEvents"].is_array());

  // Every event has what the format requires.
  for (const auto& e : t["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"))
        << e.dump();
    if (e["ph"] == "X") {
      ASSERT_TRUE(e["ts"].is_number() && e["dur"].is_number()) << e.dump();
      EXPECT_GE(e["ts"].get<double>(), 0.0);
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
  }

  auto compiles = with(t, "X", "compile");
  ASSERT_EQ(compiles.size(), 2u);
  EXPECT_DOUBLE_EQ(compiles[0]["dur"].get<double>(), 3000.0); // 3 ms in µs
  EXPECT_DOUBLE_EQ(compiles[0]["ts"].get<double>(), 0.0);     // ended at 20 µs: clamped
  EXPECT_EQ(compiles[0]["args"]["cache"], "miss");
  auto phases = with(t, "X", "compile.phase");
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0]["name"], "trace"); // pipeline order, not alphabetical
  EXPECT_EQ(phases[1]["name"], "jit");
  EXPECT_DOUBLE_EQ(phases[1]["ts"].get<double>(), phases[0]["ts"].get<double>() + 1000.0);

  auto kernels = with(t, "X", "kernel");
  ASSERT_EQ(kernels.size(), 6u);
  EXPECT_EQ(kernels[0]["name"], "kern_exp");
  EXPECT_DOUBLE_EQ(kernels[0]["dur"].get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(kernels[2]["dur"].get<double>(), 3000.0);
  EXPECT_DOUBLE_EQ(kernels[2]["ts"].get<double>(), 0.0); // 70 - 3000 clamped

  auto traces = with(t, "X", "trace");
  ASSERT_EQ(traces.size(), 2u);
  EXPECT_DOUBLE_EQ(traces[0]["ts"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(traces[0]["dur"].get<double>(), 40.0);
  EXPECT_EQ(with(t, "X", "transfer").size(), 1u);

  auto breaks = with(t, "i", "graph_break");
  ASSERT_EQ(breaks.size(), 4u);
  EXPECT_DOUBLE_EQ(breaks[0]["ts"].get<double>(), 40.0);
  EXPECT_EQ(breaks[0]["s"], "t");
  EXPECT_EQ(breaks[0]["args"]["location"], "a.py:5");
  EXPECT_EQ(with(t, "i", "recompile").size(), 1u);
  EXPECT_EQ(with(t, "i", "fallback").size(), 1u);

  int process_names = 0, thread_names = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] != "M")
      continue;
    process_names += e["name"] == "process_name";
    thread_names += e["name"] == "thread_name";
  }
  EXPECT_EQ(process_names, 1);
  EXPECT_EQ(thread_names, 2); // tids 1 and 2
}

TEST(ChromeTrace, UnfinishedTraceStillShows) {
  Session s;
  s.append(Event{5, 1, TraceStart{.function = "g"}});
  s.append(Event{50, 1, GraphBreak{.reason = "r"}});
  const json t = chrome_trace(s);
  auto traces = with(t, "X", "trace");
  ASSERT_EQ(traces.size(), 1u);
  EXPECT_DOUBLE_EQ(traces[0]["dur"].get<double>(), 45.0);
}

TEST(ChromeTrace, BytesThatAreNotUtf8DoNotBreakTheExport) {
  Session s;
  s.append(Event{1, 1, GraphBreak{.reason = "bad \xff\xfe byte", .code = "x = \xc3"}});
  const json t = json::parse(chrome_trace_json(s));
  EXPECT_EQ(with(t, "i", "graph_break").size(), 1u);
}

TEST(ChromeTrace, WritesFile) {
  Session s;
  test::fill_sample(s);
  const auto dir =
      std::filesystem::temp_directory_path() / ("npc-prof-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "trace.json";
  write_chrome_trace(s, path);
  std::ifstream in(path);
  const json t = json::parse(in);
  EXPECT_EQ(t, chrome_trace(s));
  std::filesystem::remove_all(dir);
}
} // namespace
} // namespace npc::prof
