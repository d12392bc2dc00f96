#include "npc/prof/chrome_trace.hpp"

#include <nlohmann/json.hpp>

#include "npc/prof/atomic_write.hpp"
#include "npc/prof/schema.hpp"
#include "npc/prof/timeline.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;
} // namespace

// The session's Timeline (timeline.hpp), serialized: slices as complete events ("ph":"X"),
// markers as instant events ("ph":"i"), lanes as Chrome's threads, named and ordered.
json chrome_trace(const Session& session) {
  const int pid = session.pid();
  const Timeline t = Timeline::from_events(session.snapshot(), session.thread_names());
  json meta = json::array();
  meta.push_back({{"name", "process_name"},
                  {"ph", "M"},
                  {"pid", pid},
                  {"tid", 0},
                  {"args", {{"name", "npcompile (pid " + std::to_string(pid) + ")"}}}});
  std::uint32_t sort = 0;
  for (const auto& lane : t.lanes) {
    meta.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"tid", lane.tid},
                    {"args", {{"name", lane.name}}}});
    meta.push_back({{"name", "thread_sort_index"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"tid", lane.tid},
                    {"args", {{"sort_index", sort++}}}});
  }
  for (const auto& s : t.slices)
    meta.push_back({{"name", s.name},
                    {"cat", s.category},
                    {"ph", "X"},
                    {"ts", s.start_us},
                    {"dur", s.dur_us},
                    {"pid", pid},
                    {"tid", t.lanes[s.lane].tid},
                    {"args", s.args}});
  for (const auto& m : t.markers)
    meta.push_back({{"name", m.name},
                    {"cat", m.category},
                    {"ph", "i"},
                    {"s", "t"},
                    {"ts", m.ts_us},
                    {"pid", pid},
                    {"tid", t.lanes[m.lane].tid},
                    {"args", m.args}});

  return json{{"schema", kSchemaName},
              {"version", kSchemaVersion},
              {"displayTimeUnit", "ms"},
              {"traceEvents", std::move(meta)},
              {"otherData",
               {{"schema", kSchemaName},
                {"version", kSchemaVersion},
                {"pid", pid},
                {"start_unix_us", session.start_unix_us()}}}};
}

std::string chrome_trace_json(const Session& session) {
  // Source lines may hold bytes that are not UTF-8: replace them rather than fail the export.
  return chrome_trace(session).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void write_chrome_trace(const Session& session, const std::filesystem::path& path) {
  atomic_write(path, chrome_trace_json(session));
}
} // namespace npc::prof
