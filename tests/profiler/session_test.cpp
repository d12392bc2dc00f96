#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "npc/prof/schema.hpp"
#include "npc/prof/session.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

TEST(Session, RecordStampsTimeAndThread) {
  Session s;
  s.record(GraphBreak{.reason = "r"});
  s.record(KernelRun{"k", 0, "cpu", 1.0, 0});
  auto ev = s.snapshot();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_GE(ev[1].ts_us, ev[0].ts_us);
  EXPECT_EQ(ev[0].tid, Session::current_thread_id());
  EXPECT_GT(ev[0].tid, 0u);
  EXPECT_LE(ev[1].ts_us, s.now_us());
}

TEST(Session, QueryClearSize) {
  Session s;
  test::fill_sample(s);
  EXPECT_EQ(s.query("graph_break").size(), 4u);
  EXPECT_EQ(s.query<KernelRun>().size(), 6u);
  EXPECT_EQ(s.query<KernelRun>()[0].name, "kern_exp");
  EXPECT_TRUE(s.query("transfer").empty());
  s.clear();
  EXPECT_EQ(s.size(), 0u);
  EXPECT_TRUE(s.snapshot().empty());
}

TEST(Session, ManyThreadsAppend) {
  Session s;
  constexpr int kThreads = 8, kPer = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&s, t] {
      // append(), not "lit" + string: GCC 12 warns falsely (-Wrestrict) on that here.
      const std::string n = std::to_string(t);
      s.set_thread_name(Session::current_thread_id(), std::string("worker ").append(n));
      for (int i = 0; i < kPer; ++i) {
        s.record(KernelRun{std::string("k").append(n), t, "cpu", 0.001 * i, i});
        if (i % 500 == 0)
          (void)s.snapshot(); // readers interleaved with writers
      }
    });
  for (auto& t : threads)
    t.join();
  const auto ev = s.snapshot();
  ASSERT_EQ(ev.size(), static_cast<std::size_t>(kThreads * kPer));
  // Each thread's events keep their order and one thread id per writer.
  std::map<std::string, std::pair<std::uint32_t, std::int64_t>> last; // name -> (tid, bytes)
  for (const auto& e : ev) {
    const auto* k = e.get<KernelRun>();
    ASSERT_NE(k, nullptr);
    auto [it, fresh] = last.try_emplace(k->name, e.tid, k->bytes);
    if (!fresh) {
      EXPECT_EQ(it->second.first, e.tid);
      EXPECT_EQ(it->second.second + 1, k->bytes);
      it->second.second = k->bytes;
    }
  }
  EXPECT_EQ(last.size(), static_cast<std::size_t>(kThreads));
  EXPECT_EQ(s.thread_names().size(), static_cast<std::size_t>(kThreads));
}

TEST(Session, JsonRoundTripWithSchema) {
  Session s;
  test::fill_sample(s);
  s.set_thread_name(1, "main");
  json j = s;
  EXPECT_EQ(j["schema"], kSchemaName);
  EXPECT_EQ(j["version"], kSchemaVersion);
  EXPECT_EQ(j["kind"], "session");
  EXPECT_EQ(j["events"].size(), s.size());
  EXPECT_EQ(j["events"][0]["type"], "trace_start");

  Session back;
  json::parse(j.dump()).get_to(back);
  EXPECT_EQ(back.snapshot(), s.snapshot());
  EXPECT_EQ(back.thread_names(), s.thread_names());
  EXPECT_EQ(back.start_unix_us(), s.start_unix_us());
  EXPECT_EQ(json(back), j);
}

TEST(Session, RejectsOtherSchemas) {
  Session s;
  EXPECT_THROW(json({{"schema", "other"}, {"version", 1}, {"events", json::array()}}).get_to(s),
               std::invalid_argument);
  EXPECT_THROW(
      json({{"schema", kSchemaName}, {"version", 99}, {"events", json::array()}}).get_to(s),
      std::invalid_argument);
}

TEST(Session, EachTypeKeepsItsNewestAndTheStreamKeepsItsOrder) {
  Session s;
  const std::size_t cap = Session::cap(Session::index_of<KernelSource>());
  ASSERT_GE(cap, 1u);
  s.record(GraphBreak{.reason = "early"});
  for (std::size_t i = 0; i < cap + 5; ++i) {
    s.record(KernelSource{.name = "k" + std::to_string(i)});
    if (i % 100 == 0)
      s.record(KernelRun{"run" + std::to_string(i), 0, "cpu", 1.0, 0});
  }
  EXPECT_EQ(s.total("kernel_source"), cap + 5);
  const auto sources = s.query<KernelSource>();
  ASSERT_EQ(sources.size(), cap);
  EXPECT_EQ(sources.front().name, "k5"); // the oldest five went
  ASSERT_EQ(s.query<GraphBreak>().size(), 1u); // another type's events are not pushed out
  // the merged stream is in recorded order: the break, then runs among the sources
  const auto all = s.snapshot();
  ASSERT_EQ(all.size(), s.size());
  EXPECT_EQ(all.front().type(), "graph_break");
  for (std::size_t i = 1; i < all.size(); ++i)
    ASSERT_LE(all[i - 1].ts_us, all[i].ts_us);
  std::size_t runs = 0;
  for (const auto& e : all)
    runs += e.get<KernelRun>() != nullptr;
  EXPECT_EQ(runs, (cap + 5 + 99) / 100);
}

TEST(Session, TailStartsAgainWhereAFollowerMissedDroppedEvents) {
  Session s;
  const std::size_t cap = Session::cap(Session::index_of<FusionGraph>());
  auto t0 = s.tail(0, 0);
  s.record(FusionGraph{.graph_id = 0});
  auto t1 = s.tail(t0.next, t0.epoch);
  ASSERT_TRUE(t1.continues);
  ASSERT_EQ(t1.events.size(), 1u);
  for (std::size_t i = 1; i <= cap + 1; ++i) // graph 0 and 1 are dropped
    s.record(FusionGraph{.graph_id = static_cast<std::int64_t>(i)});
  auto late = s.tail(t1.next, t1.epoch); // it had not seen graph 1, now dropped
  EXPECT_FALSE(late.continues);
  EXPECT_EQ(late.events.size(), cap);
  s.record(TraceEnd{"f", 1, 0});
  auto next = s.tail(late.next, late.epoch); // caught up: only what is new
  EXPECT_TRUE(next.continues);
  ASSERT_EQ(next.events.size(), 1u);
  EXPECT_EQ(next.events[0].type(), "trace_end");
}

TEST(Session, TakeHandsOverEverythingAndStartsANewEpoch) {
  Session s;
  test::fill_sample(s);
  const auto before = s.snapshot();
  const auto epoch = s.tail(0, 0).epoch;
  const auto taken = s.take();
  EXPECT_EQ(taken, before);
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(s.total("graph_break"), 0u);
  EXPECT_NE(s.tail(0, 0).epoch, epoch);
}

TEST(Session, GlobalIsOneObject) { EXPECT_EQ(&Session::global(), &Session::global()); }
} // namespace
} // namespace npc::prof
