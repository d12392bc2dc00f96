#include "npc/viewer/session_view.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "npc/prof/chrome_trace.hpp"
#include "npc/prof/schema_error.hpp"
#include "npc/prof/session.hpp"
#include "npc/prof/session_file.hpp"
#include "npc/viewer/viewer_model.hpp"
#include "sample_events.hpp"

namespace npc::viewer {
namespace {
namespace fs = std::filesystem;

nlohmann::json sample_session() {
  prof::Session s;
  prof::test::fill_sample(s);
  return nlohmann::json(s);
}

bool has(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

TEST(SessionView, ShowsWhatTheReportShows) {
  const auto v = SessionView::from_json(sample_session(), "s.json");
  EXPECT_EQ(v.kind, "session");
  EXPECT_EQ(v.events, 21u); // as many as fill_sample appends
  EXPECT_TRUE(has(v.summary, "4 graph breaks (2 places)")) << v.summary;
  EXPECT_TRUE(has(v.summary, "speedup over eager NumPy")) << v.summary;
  ASSERT_EQ(v.report.breaks.size(), 2u);
  EXPECT_EQ(v.report.breaks[0].count, 3);
  ASSERT_EQ(v.sources.size(), v.report.kernels.size());
  ASSERT_EQ(v.guards.size(), 1u);
  EXPECT_EQ(v.guards[0][0], (GuardDiff{"x: dtype", "float64", "float32"}));
  ASSERT_EQ(v.timing.rows.size(), 2u);
  EXPECT_EQ(v.report.kernels[v.timing.rows[0]].name, "kern_exp"); // 6 ms before 1.5 ms
  ASSERT_EQ(v.report.graphs.size(), 1u);
  EXPECT_EQ(v.report.graphs[0].decisions.size(), 1u);
  // the timeline panel's model: both traces closed, kernels on a lane beside the thread
  std::size_t traces = 0;
  for (const auto& sl : v.timeline.slices)
    traces += sl.category == "trace";
  EXPECT_EQ(traces, 2u);
  ASSERT_GE(v.timeline.lanes.size(), 2u);
  EXPECT_TRUE(v.timeline.lanes[0].thread);
  EXPECT_EQ(v.timeline.markers.size(), 5u); // four breaks and a recompile
}

TEST(SessionView, OpensASavedReportToo) {
  prof::Session s;
  prof::test::fill_sample(s);
  const auto v = SessionView::from_json(nlohmann::json(prof::Report::from_session(s)));
  EXPECT_EQ(v.kind, "report");
  EXPECT_EQ(v.report.breaks.size(), 2u);
  EXPECT_TRUE(v.timeline.slices.empty()); // a report holds no times
}

TEST(SessionView, OpensAChromeTraceAsItsTimeline) {
  // ours, exported and read back: the same lanes and slices
  prof::Session s;
  prof::test::fill_sample(s);
  const auto ours = SessionView::from_json(nlohmann::json::parse(prof::chrome_trace_json(s)));
  EXPECT_EQ(ours.kind, "chrome trace");
  const auto direct = prof::Timeline::from_events(s.snapshot(), s.thread_names());
  ASSERT_EQ(ours.timeline.lanes.size(), direct.lanes.size());
  for (std::size_t i = 0; i < direct.lanes.size(); ++i)
    EXPECT_EQ(ours.timeline.lanes[i].name, direct.lanes[i].name);
  EXPECT_EQ(ours.timeline.slices.size(), direct.slices.size());
  EXPECT_EQ(ours.timeline.markers.size(), direct.markers.size());
  EXPECT_TRUE(ours.report.kernels.empty());
  // another tool's: a bare list with B/E pairs, nested, and an instant
  const auto other = SessionView::from_json(nlohmann::json::parse(R"([
    {"ph": "B", "name": "outer", "pid": 7, "tid": 3, "ts": 10},
    {"ph": "B", "name": "inner", "pid": 7, "tid": 3, "ts": 20},
    {"ph": "E", "pid": 7, "tid": 3, "ts": 30},
    {"ph": "i", "name": "mark", "pid": 7, "tid": 3, "ts": 35},
    {"ph": "E", "pid": 7, "tid": 3, "ts": 50},
    {"ph": "C", "name": "counter", "pid": 7, "tid": 3, "ts": 60}])"));
  ASSERT_EQ(other.timeline.slices.size(), 2u);
  EXPECT_EQ(other.timeline.slices[0].name, "outer");
  EXPECT_DOUBLE_EQ(other.timeline.slices[0].dur_us, 40.0);
  EXPECT_EQ(other.timeline.slices[1].depth, 1);
  EXPECT_EQ(other.timeline.lanes[0].name, "pid 7 tid 3");
  EXPECT_EQ(other.timeline.markers.size(), 1u);
  EXPECT_THROW(SessionView::from_json(nlohmann::json{{"traceEvents", 3}}), prof::SchemaError);
}

TEST(SessionView, RejectsOtherDocuments) {
  EXPECT_THROW(SessionView::from_json(nlohmann::json{{"events", nlohmann::json::array()}}),
               prof::SchemaError);
  EXPECT_THROW(SessionView::load("/nonexistent/npcompile-1.json"), std::runtime_error);
}

TEST(ViewerModel, LoadsReloadsAndKeepsTheLastGoodView) {
  const auto dir = fs::temp_directory_path() / "npc_viewer_model_test";
  fs::remove_all(dir);
  ViewerModel m(dir);
  EXPECT_TRUE(m.refresh());
  EXPECT_EQ(m.view(), nullptr);
  EXPECT_TRUE(has(m.error(), "no npcompile session file"));

  prof::Session s;
  prof::test::fill_sample(s);
  const auto file = prof::write_session_file(s, dir);
  fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::seconds(30));
  EXPECT_TRUE(m.refresh());
  ASSERT_NE(m.view(), nullptr);
  EXPECT_EQ(m.view()->file, file);
  EXPECT_EQ(m.loads(), 1);
  EXPECT_TRUE(m.error().empty());
  EXPECT_FALSE(m.refresh()); // unchanged: nothing to do

  std::ofstream(file) << "{not json";
  fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::seconds(20));
  EXPECT_TRUE(m.refresh());
  EXPECT_TRUE(has(m.error(), "not JSON"));
  ASSERT_NE(m.view(), nullptr); // the last good view stays
  EXPECT_EQ(m.view()->report.breaks.size(), 2u);

  s.record(prof::GraphBreak{"len() of a traced array", "b.py", 3});
  prof::write_session_file(s, dir);
  fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::seconds(10));
  EXPECT_TRUE(m.refresh());
  EXPECT_TRUE(m.error().empty());
  EXPECT_EQ(m.loads(), 2);
  EXPECT_EQ(m.view()->report.breaks.size(), 3u);
  fs::remove_all(dir);
}
} // namespace
} // namespace npc::viewer
