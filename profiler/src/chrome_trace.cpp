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

// Lanes (Chrome's threads) beside the real threads: kernels, transfers, eager NumPy runs and
// compile workers each get their own, so that what a thread's lane shows nests (a trace, its
// compiles, their phases) and what runs elsewhere or is timed apart does not overlap it.
constexpr std::uint32_t kFirstLane = 1u << 30;

class Lanes {
public:
  explicit Lanes(std::map<std::uint32_t, std::string> names) : names_(std::move(names)) {}

  std::string thread_name(std::uint32_t tid) const {
    auto it = names_.find(tid);
    return it != names_.end() ? it->second : "thread " + std::to_string(tid);
  }

  // The lane of this name, made on first use; sorted after the real threads, in order made.
  std::uint32_t lane(const std::string& name) {
    auto [it, added] = lanes_.emplace(name, kFirstLane + static_cast<std::uint32_t>(lanes_.size()));
    if (added)
      order_.push_back(name);
    return it->second;
  }

  const std::vector<std::string>& made() const { return order_; }
  std::uint32_t id(const std::string& name) const { return lanes_.at(name); }

private:
  std::map<std::uint32_t, std::string> names_;
  std::map<std::string, std::uint32_t> lanes_;
  std::vector<std::string> order_;
};

// Slices recorded at their end, one after another on a lane of their own (kernel runs, which
// a graph records together after it ran; transfers; eager runs): laid end to end backwards
// from each record's time, then pushed forward where one would begin before the one before it
// ended. Lengths are kept; only placement moves, by at most the records' own delay.
struct Sequential {
  std::size_t index; // into the output array
  double end_us;
  double dur_us;
};

void lay_out(std::vector<Sequential>& lane, json& out) {
  double next_start = 0.0;
  for (std::size_t k = lane.size(); k-- > 0;) {
    auto& s = lane[k];
    double end = k + 1 < lane.size() ? std::min(s.end_us, next_start) : s.end_us;
    next_start = end - s.dur_us;
    s.end_us = end;
  }
  double cursor = 0.0;
  for (auto& s : lane) {
    const double start = std::max({0.0, cursor, s.end_us - s.dur_us});
    out[s.index]["ts"] = start;
    cursor = start + s.dur_us;
  }
}

// A compile's phases as slices: those of its translation units at each unit's start, on the
// compiling thread or a compile worker's lane; the others (fusion, codegen, nvrtc, ...) end to
// end from the compile's start on the compiling thread. Each lane's phases fit inside the
// compile: scaled down where their sum exceeds it (a session written before units were
// recorded sums phases over units built side by side).
void compile_phases(const Compile& c, double start, double total, int pid, std::uint32_t tid,
                    Lanes& lanes, const std::string& thread, json& out) {
  const double end = start + total;
  std::set<std::string> in_units;
  for (const auto& u : c.units)
    for (const auto& [name, ms] : u.phases)
      in_units.insert(name);
  std::vector<std::pair<std::string, double>> own;
  for (const auto& [name, ms] : ordered_phases(c.phases))
    if (!in_units.count(name))
      own.emplace_back(name, ms * 1000.0);
  auto lay = [&](const std::vector<std::pair<std::string, double>>& phases, double from,
                 double room, std::uint32_t lane, const json& extra) {
    double sum = 0.0;
    for (const auto& p : phases)
      sum += p.second;
    const double scale = sum > room && sum > 0 ? room / sum : 1.0;
    double t = from;
    for (const auto& [name, us] : phases) {
      json args{{"graph_id", c.graph_id}, {"ms", us / 1000.0}};
      args.update(extra);
      if (scale < 1.0)
        args["shown_scaled"] = "the phases, summed, exceed the compile: units built side by side";
      out.push_back(complete(name, "compile.phase", t, us * scale, pid, lane, std::move(args)));
      t += us * scale;
    }
    return t;
  };
  double cursor = lay(own, start, total, tid, json::object());
  int n = 0;
  for (const auto& u : c.units) {
    ++n;
    std::vector<std::pair<std::string, double>> phases;
    for (const auto& [name, ms] : ordered_phases(u.phases))
      phases.emplace_back(name, ms * 1000.0);
    const json extra{{"unit", n}};
    const double at = std::clamp(start + u.start_ms * 1000.0, start, end);
    if (u.thread.empty()) {
      const double from = std::max(at, cursor);
      cursor = lay(phases, from, std::max(0.0, end - from), tid, extra);
    } else {
      const std::uint32_t lane = lanes.lane("compile worker " + u.thread + " (for " + thread + ")");
      lay(phases, at, std::max(0.0, end - at), lane, extra);
    }
  }
}
} // namespace

json chrome_trace(const Session& session) {
  const int pid = session.pid();
  const auto events = session.snapshot();
  Lanes lanes(session.thread_names());
  json out = json::array();
  std::set<std::uint32_t> tids;
  std::map<std::uint32_t, std::vector<Sequential>> sequential; // lane -> its slices
  // Open traces per thread, closed by the matching trace_end (or by the last event).
  std::map<std::uint32_t, std::vector<const Event*>> open;
  std::int64_t last_ts = 0;

  auto in_sequence = [&](std::uint32_t lane, json slice, double end_us, double dur_us) {
    sequential[lane].push_back({out.size(), end_us, dur_us});
    out.push_back(std::move(slice));
  };

  for (const auto& e : events) {
    tids.insert(e.tid);
    last_ts = std::max(last_ts, e.ts_us);
    const double ts = static_cast<double>(e.ts_us);
    const std::string thread = lanes.thread_name(e.tid);
    if (auto* p = e.get<TraceStart>()) {
      if (!p->replay) {
        open[e.tid].push_back(&e);
      } else if (p->ms > 0) { // a replay: recorded once, at its end, with its length
        const double dur = p->ms * 1000.0;
        out.push_back(complete("replay " + p->function, "trace", start_of(e.ts_us, dur), dur, pid,
                               e.tid,
                               {{"function", p->function},
                                {"location", location(p->filename, p->lineno)},
                                {"replay", true}}));
      } else {
        out.push_back(instant("replay " + p->function, "trace", ts, pid, e.tid,
                              {{"function", p->function}, {"replay", true}}));
      }
    } else if (auto* p = e.get<TraceEnd>()) {
      auto& stack = open[e.tid];
      // the innermost open trace of this function (an end whose start was trimmed away
      // closes nothing)
      auto it = std::find_if(stack.rbegin(), stack.rend(), [&](const Event* s) {
        return s->get<TraceStart>()->function == p->function;
      });
      if (it == stack.rend())
        continue;
      const Event* s = *it;
      stack.erase(std::next(it).base(), stack.end());
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
                              {"phases_ms", p->phases},
                              {"units", p->units.size()}}));
      compile_phases(*p, start, dur, pid, e.tid, lanes, thread, out);
    } else if (auto* p = e.get<KernelRun>()) {
      const double dur = p->wall_ms * 1000.0;
      json args{{"graph_id", p->graph_id}, {"target", p->target}, {"bytes", p->bytes}};
      if (p->wall_ms > 0 && p->bytes > 0)
        args["GB/s"] = static_cast<double>(p->bytes) / (p->wall_ms * 1e6);
      const std::uint32_t lane =
          lanes.lane(p->target == "cuda" ? "CUDA stream" : "kernels (" + thread + ")");
      in_sequence(lane, complete(p->name, "kernel", start_of(e.ts_us, dur), dur, pid, lane, args),
                  ts, dur);
    } else if (auto* p = e.get<Transfer>()) {
      const double dur = p->ms * 1000.0;
      const std::uint32_t lane = lanes.lane("transfers (host <-> GPU)");
      in_sequence(lane,
                  complete(p->direction, "transfer", start_of(e.ts_us, dur), dur, pid, lane,
                           {{"bytes", p->bytes}}),
                  ts, dur);
    } else if (auto* p = e.get<EagerTiming>()) {
      // a median of `runs` runs, timed apart from the traced call: a lane of its own
      const double dur = p->ms * 1000.0;
      const std::uint32_t lane = lanes.lane("eager NumPy runs (" + thread + ")");
      in_sequence(lane,
                  complete("eager graph " + std::to_string(p->graph_id), "eager",
                           start_of(e.ts_us, dur), dur, pid, lane,
                           {{"graph_id", p->graph_id}, {"runs", p->runs}}),
                  ts, dur);
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
  for (auto& [lane, slices] : sequential)
    lay_out(slices, out);
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
  auto name_lane = [&](std::uint32_t tid, const std::string& name, std::uint32_t sort) {
    meta.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
    meta.push_back({{"name", "thread_sort_index"},
                    {"ph", "M"},
                    {"pid", pid},
                    {"tid", tid},
                    {"args", {{"sort_index", sort}}}});
  };
  std::uint32_t sort = 0;
  for (auto tid : tids)
    name_lane(tid, lanes.thread_name(tid), sort++);
  for (const auto& name : lanes.made())
    name_lane(lanes.id(name), name, sort++);
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
