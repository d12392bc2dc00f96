#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "npc/prof/report.hpp"
#include "npc/prof/schema.hpp"
#include "npc/prof/session.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

TEST(Report, DeduplicatesBreaksWithCounts) {
  Session s;
  test::fill_sample(s);
  const Report r = Report::from_session(s);
  EXPECT_EQ(r.summary.graph_breaks, 4);
  EXPECT_EQ(r.summary.unique_breaks, 2);
  ASSERT_EQ(r.breaks.size(), 2u);
  EXPECT_EQ(r.breaks[0].reason, "print() of a traced array"); // most frequent first
  EXPECT_EQ(r.breaks[0].count, 3);
  EXPECT_EQ(r.breaks[0].lineno, 5);
  EXPECT_EQ(r.breaks[0].hint, "print later"); // kept from the occurrence that had one
  EXPECT_EQ(r.breaks[1].count, 1);
  EXPECT_EQ(r.breaks[1].code, "if y.any():");
}

TEST(Report, SameReasonOtherLineIsAnotherBreak) {
  Session s;
  s.append(Event{1, 1, GraphBreak{.reason = "r", .filename = "a.py", .lineno = 1}});
  s.append(Event{2, 1, GraphBreak{.reason = "r", .filename = "a.py", .lineno = 2}});
  s.append(Event{3, 1, GraphBreak{"r", "b.py", 1}});
  s.append(Event{4, 1, GraphBreak{.reason = "r", .filename = "a.py", .lineno = 1}});
  const Report r = Report::from_session(s);
  ASSERT_EQ(r.breaks.size(), 3u);
  EXPECT_EQ(r.breaks[0].count, 2);
}

TEST(Report, CountsReplayedCalls) {
  Session s;
  s.append(Event{1, 1, TraceStart{.function = "f", .filename = "a.py", .lineno = 3}});
  s.append(Event{2, 1, TraceStart{.function = "f", .filename = "a.py", .lineno = 3, .replay = true}});
  s.append(Event{3, 1, TraceStart{.function = "f", .filename = "a.py", .lineno = 3, .replay = true}});
  const Report r = Report::from_session(s);
  EXPECT_EQ(r.summary.traces, 3);
  EXPECT_EQ(r.summary.replays, 2);
  const json j = r;
  EXPECT_EQ(j["summary"]["replays"], 2);
  EXPECT_EQ(json(s.snapshot()[1])["replay"], true);
  EXPECT_FALSE(json(s.snapshot()[0]).contains("replay")); // old sessions read the same
}

TEST(Report, SummaryAndKernelTimings) {
  Session s;
  test::fill_sample(s);
  const Report r = Report::from_session(s);
  EXPECT_EQ(r.summary.traces, 2);
  EXPECT_EQ(r.summary.graphs, 1);
  EXPECT_EQ(r.summary.compiles, 2);
  EXPECT_EQ(r.summary.cache_hits, 1);
  EXPECT_DOUBLE_EQ(r.summary.compile_ms, 3.1);
  EXPECT_EQ(r.summary.recompiles, 1);
  EXPECT_EQ(r.recompiles[0].reason, "x: dtype float64 -> float32");
  EXPECT_EQ(r.summary.kernel_runs, 6);
  EXPECT_DOUBLE_EQ(r.summary.run_ms, 7.5);
  ASSERT_EQ(r.kernels.size(), 2u);
  const auto& k = r.kernels[0]; // slowest first
  EXPECT_EQ(k.name, "kern_exp");
  EXPECT_EQ(k.runs, 3);
  EXPECT_DOUBLE_EQ(k.total_ms, 6.0);
  EXPECT_DOUBLE_EQ(k.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(k.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(k.max_ms, 3.0);
  EXPECT_EQ(k.bytes, 3000000);
  EXPECT_DOUBLE_EQ(k.gbps, 0.5); // 3 MB in 6 ms
  EXPECT_NE(k.source.find("exp(x[i])"), std::string::npos);
  ASSERT_EQ(k.ops.size(), 1u);
  EXPECT_EQ(r.kernels[1].name, "kern_sum");
  EXPECT_DOUBLE_EQ(r.kernels[1].median_ms, 0.5);
  ASSERT_EQ(r.graphs.size(), 1u);
  EXPECT_EQ(r.graphs[0].nodes.size(), 3u);
}

TEST(Report, SpeedupOverEager) {
  Session s;
  test::fill_sample(s);
  const Report r = Report::from_session(s);
  ASSERT_EQ(r.graph_timings.size(), 1u);
  const auto& g = r.graph_timings[0];
  EXPECT_EQ(g.runs, 3);
  EXPECT_DOUBLE_EQ(g.compiled_ms, 2.5); // 7.5 ms over 3 executions
  EXPECT_DOUBLE_EQ(g.eager_ms, 6.0);
  EXPECT_DOUBLE_EQ(g.speedup, 2.4);
  EXPECT_DOUBLE_EQ(r.summary.eager_ms, 18.0);
  EXPECT_DOUBLE_EQ(r.summary.speedup, 2.4);
}

TEST(Report, NoEagerTimingMeansNoSpeedup) {
  Session s;
  s.append(Event{1, 1, KernelRun{"k", 0, "cpu", 1.0, 0}});
  const Report r = Report::from_session(s);
  EXPECT_EQ(r.summary.speedup, 0.0);
  EXPECT_EQ(r.kernels[0].gbps, 0.0);
}

TEST(Report, LastNTraces) {
  Session s;
  test::fill_sample(s);
  const Report last = Report::from_session(s, 1);
  EXPECT_EQ(last.summary.traces, 1);
  EXPECT_EQ(last.summary.graph_breaks, 3);
  EXPECT_EQ(last.summary.kernel_runs, 4);
  EXPECT_EQ(last.summary.compiles, 1);
  // Sources and pictures come from before the window: the cache hit did not re-emit them.
  ASSERT_EQ(last.kernels.size(), 2u);
  EXPECT_FALSE(last.kernels[0].source.empty());
  EXPECT_EQ(last.graphs.size(), 1u);
  EXPECT_EQ(last.breaks[0].hint, ""); // the hint was only in the first trace

  EXPECT_EQ(Report::from_session(s, 2), Report::from_session(s));
  EXPECT_EQ(Report::from_session(s, 50), Report::from_session(s));
  EXPECT_EQ(Report::from_session(s, 0).summary.kernel_runs, 0);
  EXPECT_THROW(Report::from_session(s, -1), std::invalid_argument);
}

TEST(Report, JsonRoundTrip) {
  Session s;
  test::fill_sample(s);
  s.append(Event{100, 1, Fallback{"f", 0, "d"}});
  s.append(Event{101, 1, Transfer{"h2d", 100, 1.0}});
  const Report r = Report::from_session(s);
  const json j = r;
  EXPECT_EQ(j["schema"], kSchemaName);
  EXPECT_EQ(j["version"], kSchemaVersion);
  EXPECT_EQ(j["kind"], "report");
  EXPECT_EQ(j["breaks"][0]["count"], 3);
  EXPECT_EQ(j["summary"]["graph_breaks"], 4);
  const Report back = json::parse(j.dump()).get<Report>();
  EXPECT_EQ(back, r);
  EXPECT_THROW((void)json({{"schema", "x"}, {"version", 1}}).get<Report>(), std::invalid_argument);
}
} // namespace
} // namespace npc::prof
