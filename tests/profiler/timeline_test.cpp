#include <gtest/gtest.h>

#include "npc/prof/timeline.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
Timeline of(const Session& s) { return Timeline::from_events(s.snapshot(), s.thread_names()); }

const TimelineSlice& named(const Timeline& t, const std::string& name) {
  for (const auto& s : t.slices)
    if (s.name == name)
      return s;
  throw std::runtime_error("no slice " + name);
}

TEST(Timeline, SlicesNestByDepthInTheirThreadsLane) {
  Session s;
  s.set_thread_name(1, "MainThread");
  s.append(Event{0, 1, TraceStart{.function = "outer"}});
  s.append(Event{100, 1, TraceStart{.function = "inner"}});
  s.append(Event{900, 1, Compile{2, "inner", "cpu", 1, {{"fusion", 0.1}, {"codegen", 0.2}}, 0.5}});
  s.append(Event{950, 1, KernelRun{"k", 2, "cpu", 0.01, 800}});
  s.append(Event{1000, 1, TraceEnd{"inner", 1, 0}});
  s.append(Event{2000, 1, TraceEnd{"outer", 1, 0}});
  const Timeline t = of(s);
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].name, "MainThread"); // the thread first
  EXPECT_TRUE(t.lanes[0].thread);
  EXPECT_EQ(t.lanes[1].name, "kernels (MainThread)");
  EXPECT_EQ(t.lanes[0].depth, 4); // trace, trace, compile, phase
  EXPECT_EQ(named(t, "trace outer").depth, 0);
  EXPECT_EQ(named(t, "trace inner").depth, 1);
  EXPECT_EQ(named(t, "compile graph 2").depth, 2);
  EXPECT_EQ(named(t, "codegen").depth, 3);
  EXPECT_DOUBLE_EQ(named(t, "codegen").start_us, 400.0 + 100.0); // after fusion
  EXPECT_EQ(named(t, "k").lane, 1u);
  EXPECT_DOUBLE_EQ(t.end_us, 2000.0);
  const auto off = t.lane_offsets();
  ASSERT_EQ(off.size(), 3u);
  EXPECT_EQ(off[1] - off[0], 5u); // two traces, a compile, two phases
  EXPECT_EQ(off[2] - off[1], 1u);
}

TEST(Timeline, StatsOfARangeCountWhatReachesIntoIt) {
  Session s;
  s.append(Event{0, 1, TraceStart{.function = "f"}});
  s.append(Event{600, 1, Compile{1, "f", "cpu", 1, {}, 0.4}}); // 200-600 us
  s.append(Event{700, 1, GraphBreak{.reason = "r"}});
  s.append(Event{1000, 1, TraceEnd{"f", 1, 1}});
  const Timeline t = of(s);
  const RangeStats r = t.stats(500, 800); // backwards works too: t.stats(800, 500)
  EXPECT_EQ(r.slices.at("trace").first, 1u);
  EXPECT_DOUBLE_EQ(r.slices.at("trace").second, 300.0);
  EXPECT_DOUBLE_EQ(r.slices.at("compile").second, 100.0); // its last 100 us
  EXPECT_EQ(r.markers.at("graph_break"), 1u);
  EXPECT_EQ(t.stats(800, 500).slices.at("compile").first, 1u);
  EXPECT_EQ(t.stats(650, 900).slices.count("compile"), 0u);
}

TEST(Timeline, MarkersStayOnTheirThread) {
  Session s;
  test::fill_sample(s);
  const Timeline t = of(s);
  ASSERT_FALSE(t.markers.empty());
  for (const auto& m : t.markers)
    EXPECT_TRUE(t.lanes[m.lane].thread) << m.name;
  for (std::size_t i = 1; i < t.markers.size(); ++i)
    EXPECT_TRUE(t.markers[i - 1].lane < t.markers[i].lane ||
                t.markers[i - 1].ts_us <= t.markers[i].ts_us);
}

TEST(TimelineView, ZoomKeepsTheTimeUnderTheCursor) {
  TimelineView v{0, 1000};
  const double w = 800, x = 200;
  const double before = v.time_at(x, w);
  v.zoom(4, x, w, 1e6);
  EXPECT_DOUBLE_EQ(v.span(), 250.0);
  EXPECT_NEAR(v.time_at(x, w), before, 1e-9);
  EXPECT_NEAR(v.x_of(before, w), x, 1e-9);
  v.zoom(1e12, x, w, 1e6); // no closer than 0.1 us
  EXPECT_NEAR(v.span(), 0.1, 1e-9);
  v.zoom(1e-12, x, w, 5000); // no wider than the limit
  EXPECT_NEAR(v.span(), 5000.0, 1e-6);
}

TEST(TimelineView, TicksAreOneTwoOrFiveTimesAPowerOfTen) {
  TimelineView v{0, 1000};                    // 1 ms over 800 px
  EXPECT_DOUBLE_EQ(v.tick_us(800, 80), 100.0); // 100 us is exactly 80 px
  EXPECT_DOUBLE_EQ(v.tick_us(800, 81), 200.0);
  TimelineView w{0, 3.7e6};
  EXPECT_DOUBLE_EQ(w.tick_us(1000, 100), 500000.0);
}

TEST(TimelineView, PanMovesByPixelsAndFitHoldsTheSession) {
  TimelineView v{100, 300};
  v.pan(400, 800); // half the width: 100 us earlier
  EXPECT_DOUBLE_EQ(v.begin_us, 0.0);
  EXPECT_DOUBLE_EQ(v.end_us, 200.0);
  Timeline t;
  t.end_us = 5000;
  const auto f = TimelineView::fit(t);
  EXPECT_DOUBLE_EQ(f.begin_us, 0.0);
  EXPECT_GT(f.end_us, 5000.0);
}

TEST(Timeline, ManyEventsBuildAndStayOrdered) {
  // 100,000 kernel runs and 20,000 traces: the viewer's target size
  Session s;
  std::int64_t ts = 0;
  const std::string names[] = {"k0", "k1", "k2", "k3", "k4"};
  for (int i = 0; i < 20000; ++i) {
    s.append(Event{ts, 1, TraceStart{.function = "f"}});
    for (const auto& name : names)
      s.append(Event{ts += 2, 1, KernelRun{name, 1, "cpu", 0.001, 64}});
    s.append(Event{ts += 1, 1, TraceEnd{"f", 1, 0}});
  }
  const Timeline t = of(s);
  EXPECT_EQ(t.slices.size(), 120000u);
  for (std::size_t i = 1; i < t.slices.size(); ++i) {
    const auto& a = t.slices[i - 1];
    const auto& b = t.slices[i];
    ASSERT_TRUE(a.lane < b.lane || (a.lane == b.lane && a.start_us <= b.start_us));
  }
}
} // namespace
} // namespace npc::prof
