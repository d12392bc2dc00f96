#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "npc/prof/event.hpp"
#include "npc/prof/schema_error.hpp"
#include "sample_events.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

TEST(EventJson, EveryTypeRoundTrips) {
  std::set<std::string> seen;
  std::int64_t ts = 100;
  for (auto& d : test::one_of_each()) {
    Event e{ts++, 7, d};
    json j = e;
    ASSERT_TRUE(j.contains("type"));
    EXPECT_EQ(j["type"], std::string(e.type()));
    EXPECT_EQ(j["ts_us"], e.ts_us);
    EXPECT_EQ(j["tid"], 7);
    // Through text too: what files and Python see.
    Event back = json::parse(j.dump()).get<Event>();
    EXPECT_EQ(back, e) << j.dump();
    seen.insert(std::string(e.type()));
  }
  EXPECT_EQ(seen.size(), event_types().size()) << "one_of_each() must cover every type";
}

// Each struct's kFields is the one table of its fields: its JSON writes no other field, and
// reading one it does not declare fails (Python forwards records by the same table).
TEST(EventJson, WritesAndReadsOnlyTheFieldsItsTableDeclares) {
  for (auto& d : test::one_of_each()) {
    const Event e{1, 1, d};
    json j = e;
    const auto fields = event_fields(e.type());
    const std::set<std::string> declared(fields.begin(), fields.end());
    for (const auto& [k, v] : j.items()) {
      if (k != "type" && k != "ts_us" && k != "tid") {
        EXPECT_TRUE(declared.count(k)) << e.type() << " writes " << k << ", not in its kFields";
      }
    }
    j["not_a_field"] = 1;
    EXPECT_THROW(j.get<Event>(), SchemaError) << e.type();
  }
}

// The fields the Python records once kept for themselves (issue 19's one store): each
// round-trips, and an event a Dask worker made keeps the worker's address.
TEST(EventJson, TheStoresFieldsAndAWorkersNameRoundTrip) {
  Recompile rc{.reason = "a; b", .reasons = {"a", "b"}};
  PathChoice pc{.function = "f", .choice = "numpy", .budget = true, .retry = true};
  Compile c{.graph_id = 3};
  c.ops = 41;
  const std::vector<EventData> payloads{
      GraphBreak{.reason = "r", .kind = "bool", .site = "step"}, rc, pc, c,
      KernelRun{.name = "k", .wall_ms = 1.0, .function = "step"},
      Fallback{.reason = "r", .function = "cell 3"},
      LoopRun{.summary = "s", .sizes_at_run_time = true}};
  for (const auto& d : payloads) {
    Event e{5, 2, d, "tcp://10.0.0.2:4001"};
    const json j = e;
    EXPECT_EQ(j["worker"], "tcp://10.0.0.2:4001");
    EXPECT_EQ(json::parse(j.dump()).get<Event>(), e) << j.dump();
  }
  const json own = Event{5, 2, GraphBreak{.reason = "r"}};
  EXPECT_FALSE(own.contains("worker")) << "this process's own events name no worker";
  EXPECT_FALSE(json(Event{5, 2, rc}).at("reasons").empty());
  EXPECT_FALSE(json(Event{5, 2, PathChoice{.function = "f", .choice = "numpy"}}).contains("budget"));
}

TEST(EventJson, TypeNamesAreSnakeCase) {
  EXPECT_EQ((Event{0, 0, GraphBreak{.reason = "r"}}.type()), "graph_break");
  EXPECT_EQ((json(Event{0, 0, KernelRun{.name = "k"}})["type"]), "kernel_run");
  EXPECT_TRUE(is_event_type("fusion_graph"));
  EXPECT_FALSE(is_event_type("graph_brake"));
  EXPECT_EQ(event_fields("transfer").size(), 3u);
  EXPECT_TRUE(event_fields("nope").empty());
}

TEST(EventJson, OptionalFieldsDefault) {
  auto e = json{{"type", "graph_break"}, {"reason", "r"}, {"hint", nullptr}}.get<Event>();
  const auto* b = e.get<GraphBreak>();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->reason, "r");
  EXPECT_EQ(b->lineno, 0);
  EXPECT_EQ(b->hint, "");
  EXPECT_EQ(e.ts_us, 0);
}

TEST(EventJson, CompileTotalDefaultsToSumOfPhases) {
  auto e = json{{"type", "compile"}, {"graph_id", 1}, {"phases", {{"trace", 1.5}, {"jit", 2}}}}
               .get<Event>();
  EXPECT_DOUBLE_EQ(e.get<Compile>()->total_ms, 3.5);
  EXPECT_EQ(e.get<Compile>()->cache, "miss");
  EXPECT_EQ(e.get<Compile>()->target, "cpu");
}

std::string error_of(const json& j) {
  try {
    (void)j.get<Event>();
  } catch (const SchemaError& e) {
    return e.what();
  }
  return "";
}

TEST(EventJson, BadInputNamesTheProblem) {
  EXPECT_NE(error_of({{"type", "graph_brake"}}).find("unknown event type 'graph_brake'"),
            std::string::npos);
  EXPECT_NE(error_of({{"reason", "x"}}).find("'type'"), std::string::npos);
  EXPECT_NE(error_of({{"type", "graph_break"}}).find("'reason' is required"), std::string::npos);
  EXPECT_NE(error_of({{"type", "graph_break"}, {"reason", "r"}, {"resaon", "r"}})
                .find("unknown field 'resaon'"),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "graph_break"}, {"reason", "r"}, {"lineno", "7"}})
                .find("'lineno' must be an integer, got str"),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "kernel_run"}, {"name", "k"}, {"wall_ms", true}})
                .find("'wall_ms' must be a number"),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "compile"}, {"graph_id", 1}, {"target", "tpu"}}).find("\"cuda\""),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "compile"}, {"graph_id", 1}, {"cache", "hit"}}).find("'cache'"),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "transfer"}, {"direction", "up"}, {"bytes", 1}}).find("direction"),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "fusion_graph"}, {"graph_id", 1}, {"nodes", {{{"id", 0}}}}})
                .find("nodes[0]"),
            std::string::npos);
  EXPECT_NE(error_of({{"type", "kernel_source"}, {"name", "k"}, {"source", "s"}, {"ops", {1}}})
                .find("ops[0]"),
            std::string::npos);
  EXPECT_NE(error_of(json::array()).find("expected a dict"), std::string::npos);
}

TEST(EventJson, SchemaErrorIsInvalidArgument) {
  // pybind11 maps std::invalid_argument to ValueError.
  EXPECT_THROW((void)(json{{"type", "x"}}.get<Event>()), std::invalid_argument);
}
} // namespace
} // namespace npc::prof
