// The viewer's model attached to a live session (no display): what the server streams
// becomes the view, rebuilt as events arrive; a server that goes away leaves the last view
// on screen and says so.
#include <chrono>
#include <gtest/gtest.h>
#include <thread>

#include "npc/prof/attach_server.hpp"
#include "npc/prof/compile.hpp"
#include "npc/prof/trace_start.hpp"
#include "npc/viewer/viewer_model.hpp"

namespace npc::viewer {
namespace {
template <class F> bool eventually(ViewerModel& m, F ok, int ms = 5000) {
  for (int t = 0; t < ms; t += 20) {
    m.refresh();
    if (ok())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ok();
}

TEST(LiveModel, ShowsTheStreamedSessionAsItGrows) {
  prof::Session s;
  prof::TraceStart t;
  t.function = "step";
  s.record(t);
  auto server = std::make_unique<prof::AttachServer>(s, "k", "127.0.0.1", 0, 20);
  prof::AttachInfo info{"127.0.0.1", server->port(), 0, std::string(1, 'k'), {}};
  ViewerModel m(std::make_unique<prof::AttachClient>([info] { return info; }, 50),
                "kernel-x.json");
  EXPECT_TRUE(m.attached());
  ASSERT_TRUE(eventually(m, [&] { return m.view() && m.view()->events == 1; })) << m.error();
  EXPECT_TRUE(m.live());
  EXPECT_EQ(m.view()->file, "kernel-x.json");
  prof::Compile c;
  c.graph_id = 1;
  c.function = "step";
  c.total_ms = 3.0;
  s.record(c);
  ASSERT_TRUE(eventually(m, [&] { return m.view()->events == 2; }));
  EXPECT_EQ(m.view()->report.compiles.size(), 1u);
  EXPECT_FALSE(m.view()->timeline.slices.empty());
  server.reset(); // the kernel goes away: the last view stays, the state says why
  ASSERT_TRUE(eventually(m, [&] { return !m.live(); }));
  EXPECT_EQ(m.view()->events, 2u);
  EXPECT_NE(m.attach_status().find("retrying"), std::string::npos) << m.attach_status();
}
} // namespace
} // namespace npc::viewer
