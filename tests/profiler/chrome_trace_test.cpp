#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "npc/prof/chrome_trace.hpp"
#include "npc/prof/schema.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

// What keeps a trace from reading as a clean timeline in Perfetto: a slice that overlaps
// another on its lane without nesting, a negative length, an unfinished trace, a lane with
// no name. Empty when there is none.
std::vector<std::string> structure_problems(const json& trace) {
  std::vector<std::string> problems;
  std::map<std::pair<int, std::uint64_t>, std::vector<std::pair<double, double>>> lanes;
  std::set<std::pair<int, std::uint64_t>> named;
  for (const auto& e : trace["traceEvents"]) {
    const auto lane = std::make_pair(e["pid"].get<int>(), e["tid"].get<std::uint64_t>());
    if (e["ph"] == "M" && e["name"] == "thread_name")
      named.insert(lane);
    if (e["ph"] != "X")
      continue;
    const double ts = e["ts"], dur = e["dur"];
    if (dur < 0 || ts < 0)
      problems.push_back("negative time: " + e.dump());
    if (e["name"].get<std::string>().find("(unfinished)") != std::string::npos)
      problems.push_back("unfinished: " + e.dump());
    lanes[lane].emplace_back(ts, ts + dur);
  }
  constexpr double eps = 1e-6;
  for (auto& [lane, slices] : lanes) {
    if (!named.count(lane))
      problems.push_back("lane without a name: tid " + std::to_string(lane.second));
    std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first == b.first && a.second > b.second);
    });
    std::vector<double> ends; // the open slices' ends, innermost last
    for (const auto& [start, end] : slices) {
      while (!ends.empty() && ends.back() <= start + eps)
        ends.pop_back();
      if (!ends.empty() && end > ends.back() + eps)
        problems.push_back("overlap on tid " + std::to_string(lane.second) + " at " +
                           std::to_string(start));
      ends.push_back(end);
    }
  }
  return problems;
}

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
  auto phases = with(t, "X", "compile.phase"); // by start, the longer first
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0]["name"], "trace"); // pipeline order, not alphabetical
  EXPECT_DOUBLE_EQ(phases[0]["dur"].get<double>(), 1000.0);
  EXPECT_EQ(phases[2]["name"], "jit");
  EXPECT_DOUBLE_EQ(phases[2]["ts"].get<double>(), phases[0]["ts"].get<double>() + 1000.0);

  auto kernels = with(t, "X", "kernel");
  ASSERT_EQ(kernels.size(), 6u);
  EXPECT_EQ(kernels[0]["name"], "kern_exp");
  EXPECT_DOUBLE_EQ(kernels[0]["dur"].get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(kernels[2]["dur"].get<double>(), 3000.0);
  // on a lane of their own, end to end in the order they ran (recorded 1 us apart, with
  // lengths of milliseconds: pushed forward, their lengths kept)
  EXPECT_NE(kernels[0]["tid"], 1);
  for (std::size_t k = 1; k < kernels.size(); ++k) {
    EXPECT_EQ(kernels[k]["tid"], kernels[0]["tid"]);
    EXPECT_GE(kernels[k]["ts"].get<double>(),
              kernels[k - 1]["ts"].get<double>() + kernels[k - 1]["dur"].get<double>() - 1e-9);
  }

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
  // tids 1 and 2, and the lanes of thread 1's kernels and eager runs, and of transfers
  EXPECT_EQ(thread_names, 5);
  EXPECT_EQ(structure_problems(t), std::vector<std::string>{});
}

TEST(ChromeTrace, StructureCheckFindsOverlapsAndUnfinishedTraces) {
  // the checker itself: a trace that ends inside another's slice without nesting
  json bad{{"traceEvents",
            {{{"ph", "X"}, {"name", "a"}, {"pid", 1}, {"tid", 1}, {"ts", 0}, {"dur", 10}},
             {{"ph", "X"}, {"name", "b"}, {"pid", 1}, {"tid", 1}, {"ts", 5}, {"dur", 10}},
             {{"ph", "X"}, {"name", "trace g (unfinished)"}, {"pid", 1}, {"tid", 2}, {"ts", 0},
              {"dur", 1}}}}};
  const auto problems = structure_problems(bad);
  ASSERT_EQ(problems.size(), 4u); // an overlap, an unfinished trace, two lanes without names
}

TEST(ChromeTrace, CompileUnitsOnTheirThreadsAndPhasesInsideTheCompile) {
  Session s;
  s.append(Event{0, 1, TraceStart{.function = "f"}});
  Compile c{3, "f", "cpu", 4,
            {{"fusion", 1.0}, {"codegen", 1.0}, {"frontend", 7.0}, {"optimize", 4.0}, {"jit", 2.0}},
            10.0, "miss"};
  c.units = {CompileUnit{"", 2.0, {{"frontend", 3.0}, {"optimize", 2.0}, {"jit", 1.0}}},
             CompileUnit{"npc-compile_0", 2.1, {{"frontend", 4.0}, {"optimize", 2.0}, {"jit", 1.0}}}};
  s.append(Event{10500, 1, c}); // the compile ran 0.5-10.5 ms
  s.append(Event{11000, 1, TraceEnd{"f", 1, 0}});
  const json t = chrome_trace(s);
  EXPECT_EQ(structure_problems(t), std::vector<std::string>{});
  auto phases = with(t, "X", "compile.phase");
  ASSERT_EQ(phases.size(), 8u);
  std::set<std::uint64_t> lanes;
  for (const auto& p : phases) {
    lanes.insert(p["tid"].get<std::uint64_t>());
    EXPECT_GE(p["ts"].get<double>(), 500.0 - 1e-9) << p.dump();
    EXPECT_LE(p["ts"].get<double>() + p["dur"].get<double>(), 10500.0 + 1e-9) << p.dump();
  }
  EXPECT_EQ(lanes.size(), 2u); // the compiling thread and the worker
  // the unit built on the compiling thread begins 2 ms in, after fusion and codegen
  EXPECT_EQ(phases[2]["name"], "frontend");
  EXPECT_DOUBLE_EQ(phases[2]["ts"].get<double>(), 2500.0);
  EXPECT_EQ(phases[2]["tid"], 1);
}

TEST(ChromeTrace, PhasesSummedOverParallelUnitsAreScaledIntoTheCompile) {
  // a session written before compiles recorded their units
  Session s;
  s.append(Event{20000, 1, Compile{1, "f", "cpu", 2, {{"frontend", 20.0}, {"jit", 10.0}}, 15.0}});
  const json t = chrome_trace(s);
  EXPECT_EQ(structure_problems(t), std::vector<std::string>{});
  auto phases = with(t, "X", "compile.phase");
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_DOUBLE_EQ(phases[0]["dur"].get<double>() + phases[1]["dur"].get<double>(), 15000.0);
  EXPECT_TRUE(phases[0]["args"].contains("shown_scaled"));
  EXPECT_DOUBLE_EQ(phases[0]["args"]["ms"].get<double>(), 20.0);
}

TEST(ChromeTrace, NestedTracesAndReplaysAreSlices) {
  Session s;
  s.append(Event{0, 1, TraceStart{.function = "outer"}});
  s.append(Event{10, 1, TraceStart{.function = "inner"}});
  s.append(Event{20, 1, TraceEnd{"inner", 1, 0}});
  s.append(Event{30, 1, TraceEnd{"outer", 2, 1}});
  s.append(Event{90, 1, TraceStart{.function = "outer", .replay = true, .ms = 0.05}});
  const json t = chrome_trace(s);
  EXPECT_EQ(structure_problems(t), std::vector<std::string>{});
  auto traces = with(t, "X", "trace"); // by start
  ASSERT_EQ(traces.size(), 3u);
  EXPECT_EQ(traces[0]["name"], "trace outer");
  EXPECT_DOUBLE_EQ(traces[0]["dur"].get<double>(), 30.0);
  EXPECT_EQ(traces[1]["name"], "trace inner");
  EXPECT_EQ(traces[2]["name"], "replay outer");
  EXPECT_DOUBLE_EQ(traces[2]["dur"].get<double>(), 50.0);
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
