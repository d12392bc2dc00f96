#include "npc/prof/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "npc/prof/compile_phases.hpp"
#include "npc/prof/schema_error.hpp"

namespace npc::prof {
namespace {
using nlohmann::json;

// Events measuring an interval are recorded at its end.
double start_of(std::int64_t end_us, double dur_us) {
  return std::max(0.0, static_cast<double>(end_us) - dur_us);
}

std::string location(const std::string& file, std::int64_t line) {
  return file.empty() ? std::string{} : file + ":" + std::to_string(line);
}

// Lanes beside the real threads get ids past any thread's.
constexpr std::uint32_t kFirstLane = 1u << 30;

// Sorted by lane and start (the longer first at one start), and each slice's depth: how many
// slices of its lane hold it.
void nest(Timeline& t) {
  auto& sl = t.slices;
  std::stable_sort(sl.begin(), sl.end(), [](const TimelineSlice& a, const TimelineSlice& b) {
    if (a.lane != b.lane)
      return a.lane < b.lane;
    if (a.start_us != b.start_us)
      return a.start_us < b.start_us;
    return a.dur_us > b.dur_us;
  });
  constexpr double eps = 1e-6;
  std::vector<double> open; // ends of the slices holding the current one
  std::size_t lane = static_cast<std::size_t>(-1);
  for (auto& l : t.lanes)
    l.depth = 0;
  for (auto& s : sl) {
    if (s.lane != lane) {
      lane = s.lane;
      open.clear();
    }
    while (!open.empty() && open.back() <= s.start_us + eps)
      open.pop_back();
    s.depth = static_cast<int>(open.size());
    open.push_back(s.end_us());
    t.lanes[s.lane].depth = std::max(t.lanes[s.lane].depth, s.depth + 1);
  }
  std::stable_sort(t.markers.begin(), t.markers.end(), [](const auto& a, const auto& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.ts_us < b.ts_us;
  });
}

// The lanes in the order perm gives (perm[i]: the lane that goes i-th), slices and markers
// following them; then sorted and nested again.
void reorder(Timeline& t, const std::vector<std::size_t>& perm) {
  std::vector<std::size_t> where(perm.size());
  std::vector<TimelineLane> lanes(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    where[perm[i]] = i;
    lanes[i] = t.lanes[perm[i]];
  }
  t.lanes = std::move(lanes);
  for (auto& s : t.slices)
    s.lane = where[s.lane];
  for (auto& m : t.markers)
    m.lane = where[m.lane];
  nest(t);
}

std::vector<std::size_t> identity(std::size_t n) {
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i)
    perm[i] = i;
  return perm;
}

class Builder {
public:
  explicit Builder(const std::map<std::uint32_t, std::string>& names) : names_(names) {}

  std::string thread_name(std::uint32_t tid) const {
    auto it = names_.find(tid);
    return it != names_.end() ? it->second : "thread " + std::to_string(tid);
  }

  std::size_t thread_lane(std::uint32_t tid) {
    auto [it, added] = threads_.emplace(tid, 0);
    if (added) {
      it->second = t_.lanes.size();
      t_.lanes.push_back({thread_name(tid), tid, true, 0});
    }
    return it->second;
  }

  std::size_t lane(const std::string& name) {
    auto [it, added] = others_.emplace(name, 0);
    if (added) {
      it->second = t_.lanes.size();
      t_.lanes.push_back({name, kFirstLane + static_cast<std::uint32_t>(others_.size() - 1), false, 0});
    }
    return it->second;
  }

  void slice(std::size_t lane, double start, double dur, std::string name, std::string cat,
             json args) {
    t_.slices.push_back({lane, start, dur, std::move(name), std::move(cat), std::move(args), 0});
  }

  // Recorded at its end, one after another on a lane of their own (see lay_out).
  void sequential(std::size_t lane, double end, double dur, std::string name, std::string cat,
                  json args) {
    queued_[lane].push_back({t_.slices.size(), end});
    slice(lane, 0.0, dur, std::move(name), std::move(cat), std::move(args)); // (lay_out places it)
  }

  void marker(std::size_t lane, double ts, std::string name, std::string cat, json args) {
    t_.markers.push_back({lane, ts, std::move(name), std::move(cat), std::move(args)});
  }

  Timeline finish(double last_ts);

private:
  void lay_out(const std::vector<std::pair<std::size_t, double>>& slices);

  const std::map<std::uint32_t, std::string>& names_;
  Timeline t_;
  std::map<std::uint32_t, std::size_t> threads_;
  std::map<std::string, std::size_t> others_;
  // lane -> its sequential slices (index, recorded end), in the order recorded
  std::map<std::size_t, std::vector<std::pair<std::size_t, double>>> queued_;
};

// Slices recorded at their end, one after another (kernel runs, which a graph records
// together after it ran; transfers; eager runs): laid end to end backwards from each
// record's time, then pushed forward where one would begin before the one before it ended.
// Lengths are kept; only placement moves, by at most the records' own delay.
void Builder::lay_out(const std::vector<std::pair<std::size_t, double>>& idx) {
  std::vector<double> end(idx.size());
  double next_start = 0.0;
  for (std::size_t k = idx.size(); k-- > 0;) {
    const double dur = t_.slices[idx[k].first].dur_us;
    end[k] = k + 1 < idx.size() ? std::min(idx[k].second, next_start) : idx[k].second;
    next_start = end[k] - dur;
  }
  double cursor = 0.0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    auto& s = t_.slices[idx[k].first];
    s.start_us = std::max({0.0, cursor, end[k] - s.dur_us});
    cursor = s.start_us + s.dur_us;
  }
}

Timeline Builder::finish(double last_ts) {
  for (const auto& [lane, idx] : queued_)
    lay_out(idx);
  t_.end_us = last_ts;
  for (const auto& s : t_.slices)
    t_.end_us = std::max(t_.end_us, s.end_us());
  for (const auto& m : t_.markers)
    t_.end_us = std::max(t_.end_us, m.ts_us);
  // real threads first, then the lanes beside them (made in that order per thread)
  auto perm = identity(t_.lanes.size());
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    return t_.lanes[a].thread > t_.lanes[b].thread;
  });
  reorder(t_, perm);
  return std::move(t_);
}

// A compile's phases: those of its translation units at each unit's start, on the compiling
// thread or a compile worker's lane; the others (fusion, codegen, nvrtc, ...) end to end from
// the compile's start on the compiling thread. Each lane's phases fit inside the compile:
// scaled down where their sum exceeds it (a session written before units were recorded sums
// phases over units built side by side).
void compile_phases(const Compile& c, double start, double total, std::size_t lane,
                    const std::string& thread, Builder& b) {
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
                 double room, std::size_t to, const json& extra) {
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
      b.slice(to, t, us * scale, name, "compile.phase", std::move(args));
      t += us * scale;
    }
    return t;
  };
  double cursor = lay(own, start, total, lane, json::object());
  int n = 0;
  for (const auto& u : c.units) {
    std::vector<std::pair<std::string, double>> phases;
    for (const auto& [name, ms] : ordered_phases(u.phases))
      phases.emplace_back(name, ms * 1000.0);
    const json extra{{"unit", ++n}};
    const double at = std::clamp(start + u.start_ms * 1000.0, start, end);
    if (u.thread.empty()) {
      const double from = std::max(at, cursor);
      cursor = lay(phases, from, std::max(0.0, end - from), lane, extra);
    } else {
      const std::size_t worker = b.lane("compile worker " + u.thread + " (for " + thread + ")");
      lay(phases, at, std::max(0.0, end - at), worker, extra);
    }
  }
}
} // namespace

Timeline Timeline::from_events(const std::vector<Event>& events,
                               const std::map<std::uint32_t, std::string>& thread_names) {
  Builder b(thread_names);
  // Open traces per thread, closed by the matching trace_end (or by the last event).
  std::map<std::uint32_t, std::vector<const Event*>> open;
  std::int64_t last_ts = 0;
  for (const auto& e : events) {
    last_ts = std::max(last_ts, e.ts_us);
    const double ts = static_cast<double>(e.ts_us);
    const std::size_t lane = b.thread_lane(e.tid);
    const std::string thread = b.thread_name(e.tid);
    if (auto* p = e.get<TraceStart>()) {
      if (!p->replay) {
        open[e.tid].push_back(&e);
      } else if (p->ms > 0) { // a replay: recorded once, at its end, with its length
        const double dur = p->ms * 1000.0;
        b.slice(lane, start_of(e.ts_us, dur), dur, "replay " + p->function, "trace",
                {{"function", p->function},
                 {"location", location(p->filename, p->lineno)},
                 {"replay", true}});
      } else {
        b.marker(lane, ts, "replay " + p->function, "trace",
                 {{"function", p->function}, {"replay", true}});
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
      b.slice(lane, static_cast<double>(s->ts_us), static_cast<double>(e.ts_us - s->ts_us),
              "trace " + ts0->function, "trace",
              {{"function", ts0->function},
               {"location", location(ts0->filename, ts0->lineno)},
               {"graphs", p->graphs},
               {"breaks", p->breaks}});
    } else if (auto* p = e.get<Compile>()) {
      const double dur = p->total_ms * 1000.0;
      const double start = start_of(e.ts_us, dur);
      b.slice(lane, start, dur, "compile graph " + std::to_string(p->graph_id), "compile",
              {{"graph_id", p->graph_id},
               {"function", p->function},
               {"target", p->target},
               {"kernels", p->kernels},
               {"cache", p->cache},
               {"phases_ms", p->phases},
               {"units", p->units.size()}});
      compile_phases(*p, start, dur, lane, thread, b);
    } else if (auto* p = e.get<KernelRun>()) {
      json args{{"graph_id", p->graph_id}, {"target", p->target}, {"bytes", p->bytes}};
      if (p->wall_ms > 0 && p->bytes > 0)
        args["GB/s"] = static_cast<double>(p->bytes) / (p->wall_ms * 1e6);
      b.sequential(b.lane(p->target == "cuda" ? "CUDA stream" : "kernels (" + thread + ")"), ts,
                   p->wall_ms * 1000.0, p->name, "kernel", std::move(args));
    } else if (auto* p = e.get<Transfer>()) {
      b.sequential(b.lane("transfers (host <-> GPU)"), ts, p->ms * 1000.0, p->direction,
                   "transfer", {{"bytes", p->bytes}});
    } else if (auto* p = e.get<EagerTiming>()) {
      // a median of `runs` runs, timed apart from the traced call: a lane of its own
      b.sequential(b.lane("eager NumPy runs (" + thread + ")"), ts, p->ms * 1000.0,
                   "eager graph " + std::to_string(p->graph_id), "eager",
                   {{"graph_id", p->graph_id}, {"runs", p->runs}});
    } else if (auto* p = e.get<GraphBreak>()) {
      b.marker(lane, ts, "graph break: " + p->reason, "graph_break",
               {{"reason", p->reason},
                {"location", location(p->filename, p->lineno)},
                {"function", p->function},
                {"code", p->code},
                {"hint", p->hint}});
    } else if (auto* p = e.get<Recompile>()) {
      b.marker(lane, ts, "recompile: " + p->reason, "recompile",
               {{"reason", p->reason},
                {"graph_id", p->graph_id},
                {"function", p->function},
                {"location", location(p->filename, p->lineno)}});
    } else if (auto* p = e.get<Fallback>()) {
      b.marker(lane, ts, "fallback: " + p->reason, "fallback",
               {{"reason", p->reason}, {"graph_id", p->graph_id}, {"detail", p->detail}});
    }
    // kernel_source and fusion_graph carry no time of their own: they live in the report.
  }
  for (const auto& [tid, stack] : open)
    for (const Event* s : stack) {
      const auto* p = s->get<TraceStart>();
      b.slice(b.thread_lane(tid), static_cast<double>(s->ts_us),
              static_cast<double>(last_ts - s->ts_us), "trace " + p->function + " (unfinished)",
              "trace", {{"function", p->function}});
    }
  return b.finish(static_cast<double>(last_ts));
}

Timeline Timeline::from_chrome(const nlohmann::json& doc) {
  const json* events = &doc;
  if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it == doc.end() || !it->is_array())
      throw SchemaError("not a Chrome trace: no traceEvents list");
    events = &*it;
  } else if (!doc.is_array()) {
    throw SchemaError("not a Chrome trace: neither an object nor a list of events");
  }
  // (pid, tid) -> a lane number, its name from the metadata
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> ids;
  std::map<std::uint32_t, std::string> names;
  std::map<std::uint32_t, std::int64_t> sort;
  auto id_of = [&](const json& e) {
    const auto key = std::make_pair(e.value("pid", std::int64_t{0}), e.value("tid", std::int64_t{0}));
    auto [it, added] = ids.emplace(key, static_cast<std::uint32_t>(ids.size() + 1));
    if (added)
      names[it->second] = "pid " + std::to_string(key.first) + " tid " + std::to_string(key.second);
    return it->second;
  };
  for (const auto& e : *events)
    if (e.is_object() && e.value("ph", "") == "M") {
      const auto& args = e.value("args", json::object());
      if (e.value("name", "") == "thread_name" && args.contains("name") && args["name"].is_string())
        names[id_of(e)] = args["name"].get<std::string>();
      else if (e.value("name", "") == "thread_sort_index" && args.contains("sort_index") &&
               args["sort_index"].is_number())
        sort[id_of(e)] = args["sort_index"].get<std::int64_t>();
    }
  Builder b(names);
  std::map<std::uint32_t, std::vector<json>> open; // B events per lane
  double last = 0;
  auto number = [](const json& e, const char* k) {
    auto it = e.find(k);
    return it != e.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  for (const auto& e : *events) {
    if (!e.is_object())
      continue;
    const std::string ph = e.value("ph", "");
    if (ph != "X" && ph != "B" && ph != "E" && ph != "i" && ph != "I")
      continue;
    const std::uint32_t id = id_of(e);
    const std::size_t lane = b.thread_lane(id);
    const double ts = number(e, "ts");
    const std::string name = e.value("name", std::string{});
    const std::string cat = e.value("cat", std::string{});
    json args = e.contains("args") && e["args"].is_object() ? e["args"] : json::object();
    if (ph == "X") {
      const double dur = std::max(0.0, number(e, "dur"));
      b.slice(lane, ts, dur, name, cat, std::move(args));
      last = std::max(last, ts + dur);
    } else if (ph == "B") {
      open[id].push_back(e);
    } else if (ph == "E") {
      auto& stack = open[id];
      if (stack.empty())
        continue;
      const json begin = stack.back();
      stack.pop_back();
      const double t0 = number(begin, "ts");
      json bargs = begin.contains("args") && begin["args"].is_object() ? begin["args"] : json::object();
      bargs.update(args);
      b.slice(lane, t0, std::max(0.0, ts - t0), begin.value("name", std::string{}),
              begin.value("cat", std::string{}), std::move(bargs));
      last = std::max(last, ts);
    } else {
      b.marker(lane, ts, name, cat, std::move(args));
      last = std::max(last, ts);
    }
  }
  Timeline t = b.finish(last);
  // the trace's own lane order where it gives one
  if (!sort.empty()) {
    auto key = [&](std::size_t i) {
      auto it = sort.find(t.lanes[i].tid);
      return it != sort.end() ? it->second : std::numeric_limits<std::int64_t>::max();
    };
    auto perm = identity(t.lanes.size());
    std::stable_sort(perm.begin(), perm.end(), [&](auto a, auto c) { return key(a) < key(c); });
    reorder(t, perm);
  }
  return t;
}

std::vector<std::size_t> Timeline::lane_offsets() const {
  std::vector<std::size_t> off(lanes.size() + 1, slices.size());
  for (std::size_t i = slices.size(); i-- > 0;)
    off[slices[i].lane] = i;
  for (std::size_t l = lanes.size(); l-- > 0;)
    off[l] = std::min(off[l], off[l + 1]);
  return off;
}

RangeStats Timeline::stats(double begin_us, double end_us) const {
  RangeStats r{std::min(begin_us, end_us), std::max(begin_us, end_us), {}, {}};
  for (const auto& s : slices) {
    const double inside = std::min(r.end_us, s.end_us()) - std::max(r.begin_us, s.start_us);
    if (inside > 0 || (s.dur_us == 0 && s.start_us >= r.begin_us && s.start_us <= r.end_us)) {
      auto& [count, us] = r.slices[s.category];
      ++count;
      us += std::max(0.0, inside);
    }
  }
  for (const auto& m : markers)
    if (m.ts_us >= r.begin_us && m.ts_us <= r.end_us)
      ++r.markers[m.category];
  return r;
}

TimelineView TimelineView::fit(const Timeline& t) {
  const double span = std::max(t.end_us, 1.0);
  return {0.0, 1.02 * span};
}

double TimelineView::x_of(double ts_us, double width) const {
  return (ts_us - begin_us) / span() * width;
}

double TimelineView::time_at(double x, double width) const {
  return begin_us + x / width * span();
}

void TimelineView::zoom(double factor, double x, double width, double limit_us) {
  const double at = time_at(x, width);
  const double span_new = std::clamp(span() / factor, 0.1, std::max(0.1, limit_us));
  begin_us = at - x / width * span_new;
  end_us = begin_us + span_new;
}

double TimelineView::tick_us(double width, double min_px) const {
  const double want = span() * min_px / std::max(width, 1.0);
  double step = std::pow(10.0, std::floor(std::log10(std::max(want, 1e-3))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (step * m >= want)
      return step * m;
  return step * 10;
}

void TimelineView::pan(double dx, double width) {
  const double dt = dx / width * span();
  begin_us -= dt;
  end_us -= dt;
}
} // namespace npc::prof
