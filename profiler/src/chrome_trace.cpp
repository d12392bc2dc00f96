#include "npc/prof/chrome_trace.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "npc/prof/atomic_write.hpp"
#include "npc/prof/compile_phases.hpp"
#include "npc/prof/schema.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

json complete(std::string name, const char* cat, double start_us, double dur_us, int pid,
              std::uint32_t tid, json args) {
  return json{{"name", std::move(name)}, {"cat", cat}, {"ph", "X"},  {"ts", start_us},
              {"dur", dur_us},           {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

json instant(std::string name, const char* cat, double ts_us, int pid, std::uint32_t tid,
             json args) {
  return json{{"name", std::move(name)},
              {"cat", cat},
              {"ph", "i"},
              {"s", "t"},
              {"ts", ts_us},
              {"pid", pid},
              {"tid", tid},
              {"args", std::move(args)}};
}

// Events measuring an interval are recorded at its end; Chrome wants the start.
double start_of(std::int64_t end_us, double dur_us) {
  return std::max(0.0, static_cast<double>(end_us) - dur_us);
}

std::string location(const std::string& file, std::int64_t line) {
  if (file.empty())
    return {};
  return file + ":" + std::to_string(line);
}
} // namespace

json chrome_trace(const Session& session) {
  const int pid = session.pid();
  const auto events = session.snapshot();
  json out = json::array();
  std::set<std::uint32_t> tids;
  // Open traces per thread, closed by the matching trace_end (or by the last event).
  std::map<std::uint32_t, std::vector<const Event*>> open;
  std::int64_t last_ts = 0;

  for (const auto& e : events) {
    tids.insert(e.tid);
    last_ts = std::max(last_ts, e.ts_us);
    const double ts = static_cast<double>(e.ts_us);
    if (auto* p = e.get<TraceStart>()) {
      open[e.tid].push_back(&e);
      (void)p;
    } else if (auto* p = e.get<TraceEnd>()) {
      auto& stack = open[e.tid];
      if (stack.empty())
        continue;
      const Event* s = stack.back();
      stack.pop_back();
      const auto* ts0 = s->get<TraceStart>();
      out.push_back(complete("trace " + ts0->function, "trace", static_cast<double>(s->ts_us),
                             static_cast<double>(e.ts_us - s->ts_us), pid, e.tid,
                             {{"function", ts0->function},
                              {"location", location(ts0->filename, ts0->lineno)},
                              {"graphs", p->graphs},
                              {"breaks", p->breaks}}));
    } else if (auto* p = e.get<Compile>()) {
      const double dur = p->total_ms * 1000.0;
      const double start = start_of(e.ts_us, dur);
      out.push_back(complete("compile graph " + std::to_string(p->graph_id), "compile", start, dur,
                             pid, e.tid,
                             {{"graph_id", p->graph_id},
                              {"function", p->function},
                              {"target", p->target},
                              {"kernels", p->kernels},
                              {"cache", p->cache},
                              {"phases_ms", p->phases}}));
      // Phases, laid end to end inside the compile in pipeline order.
      double t = start;
      for (const auto& [name, ms] : ordered_phases(p->phases)) {
        out.push_back(complete(name, "compile.phase", t, ms * 1000.0, pid, e.tid,
                               {{"graph_id", p->graph_id}, {"ms", ms}}));
        t += ms * 1000.0;
      }
    } else if (auto* p = e.get<KernelRun>()) {
      const double dur = p->wall_ms * 1000.0;
      json args{{"graph_id", p->graph_id}, {"target", p->target}, {"bytes", p->bytes}};
      if (p->wall_ms > 0 && p->bytes > 0)
        args["GB/s"] = static_cast<double>(p->bytes) / (p->wall_ms * 1e6);
      out.push_back(complete(p->name, "kernel", start_of(e.ts_us, dur), dur, pid, e.tid, args));
    } else if (auto* p = e.get<Transfer>()) {
      const double dur = p->ms * 1000.0;
      out.push_back(complete(p->direction, "transfer", start_of(e.ts_us, dur), dur, pid, e.tid,
                             {{"bytes", p->bytes}}));
    } else if (auto* p = e.get<EagerTiming>()) {
      const double dur = p->ms * 1000.0;
      out.push_back(complete("eager graph " + std::to_string(p->graph_id), "eager",
                             start_of(e.ts_us, dur), dur, pid, e.tid, {{"graph_id", p->graph_id}}));
    } else if (auto* p = e.get<GraphBreak>()) {
      out.push_back(instant("graph break: " + p->reason, "graph_break", ts, pid, e.tid,
                            {{"reason", p->reason},
                             {"location", location(p->filename, p->lineno)},
                             {"function", p->function},
                             {"code", p->code},
                             {"hint", p->hint}}));
    } else if (auto* p = e.get<Recompile>()) {
      out.push_back(instant("recompile: " + p->reason, "recompile", ts, pid, e.tid,
                            {{"reason", p->reason},
                             {"graph_id", p->graph_id},
                             {"function", p->function},
                             {"location", location(p->filename, p->lineno)}}));
    } else if (auto* p = e.get<Fallback>()) {
      out.push_back(
          instant("fallback: " + p->reason, "fallback", ts, pid, e.tid,
                  {{"reason", p->reason}, {"graph_id", p->graph_id}, {"detail", p->detail}}));
    }
    // kernel_source and fusion_graph carry no time of their own: they live in the report.
  }
  for (const auto& [tid, stack] : open)
    for (const Event* s : stack) {
      const auto* p = s->get<TraceStart>();
      out.push_back(complete("trace " + p->function + " (unfinished)", "trace",
                             static_cast<double>(s->ts_us), static_cast<double>(last_ts - s->ts_us),
                             pid, tid, {{"function", p->function}}));
    }

  json meta = json::array();
  meta.push_back({{"name", "process_name"},
                  {"ph", "M"},
                  {"pid", pid},
                  {"tid", 0},
                  {"args", {{"name", "npcompile (pid " + std::to_string(pid) + ")"}}}});
  const auto names = session.thread_names();
  for (auto tid : tids) {
    auto it = names.find(tid);
    std::string name = it != names.end() ? it->second : "thread " + std::to_string(tid);
    meta.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"tid", tid},
                    {"args", {{"name", name}}}});
    meta.push_back({{"name", "thread_sort_index"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"tid", tid},
                    {"args", {{"sort_index", tid}}}});
  }
  for (auto& e : out)
    meta.push_back(std::move(e));

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
