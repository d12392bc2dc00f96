#include "npc/prof/report.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>

#include "npc/prof/json_fields.hpp"
#include "npc/prof/schema.hpp"
#include "npc/prof/session.hpp"

namespace npc::prof {
namespace {
double median(std::vector<double> v) {
  if (v.empty())
    return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::size_t window_start(const std::vector<Event>& events, std::optional<int> last_n) {
  if (!last_n)
    return 0;
  if (*last_n < 0)
    throw std::invalid_argument("last_n_traces must be >= 0");
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].get<TraceStart>())
      starts.push_back(i);
  if (*last_n == 0)
    return events.size();
  if (starts.size() <= static_cast<std::size_t>(*last_n))
    return 0;
  return starts[starts.size() - static_cast<std::size_t>(*last_n)];
}
} // namespace

Report Report::from_events(const std::vector<Event>& events, std::optional<int> last_n_traces) {
  Report r;
  const std::size_t begin = window_start(events, last_n_traces);

  using BreakKey = std::tuple<std::string, std::string, std::int64_t>;
  std::map<BreakKey, std::size_t> break_index;
  std::set<std::int64_t> graph_ids;
  std::map<std::string, std::vector<double>> run_ms; // kernel name -> wall times
  std::map<std::string, std::int64_t> run_bytes;
  std::map<std::string, const KernelRun*> last_run;
  std::vector<std::string> kernel_order;             // first seen in window
  std::map<std::int64_t, std::vector<double>> eager; // graph id -> eager ms per execution
  std::map<std::int64_t, std::int64_t> eager_runs;   // graph id -> eager executions timed

  auto note_kernel = [&](const std::string& name) {
    if (std::find(kernel_order.begin(), kernel_order.end(), name) == kernel_order.end())
      kernel_order.push_back(name);
  };

  for (std::size_t i = begin; i < events.size(); ++i) {
    const Event& e = events[i];
    if (auto* p = e.get<TraceStart>()) {
      ++r.summary.traces;
      if (p->replay)
        ++r.summary.replays;
    } else if (auto* p = e.get<TraceEnd>()) {
      r.traces.push_back(*p);
    } else if (auto* p = e.get<GraphBreak>()) {
      ++r.summary.graph_breaks;
      BreakKey key{p->reason, p->filename, p->lineno};
      auto it = break_index.find(key);
      if (it == break_index.end()) {
        break_index.emplace(key, r.breaks.size());
        r.breaks.push_back({p->reason, p->filename, p->lineno, p->hint, p->function, p->code, 1});
      } else {
        auto& b = r.breaks[it->second];
        ++b.count;
        // Later occurrences may know more (a hint, the code line).
        if (b.hint.empty())
          b.hint = p->hint;
        if (b.code.empty())
          b.code = p->code;
        if (b.function.empty())
          b.function = p->function;
      }
    } else if (auto* p = e.get<Compile>()) {
      r.compiles.push_back(*p);
      graph_ids.insert(p->graph_id);
      ++r.summary.compiles;
      if (p->cache != "miss")
        ++r.summary.cache_hits;
      r.summary.compile_ms += p->total_ms;
    } else if (auto* p = e.get<Recompile>()) {
      r.recompiles.push_back(*p);
    } else if (auto* p = e.get<KernelRun>()) {
      note_kernel(p->name);
      run_ms[p->name].push_back(p->wall_ms);
      run_bytes[p->name] += p->bytes;
      last_run[p->name] = p;
      graph_ids.insert(p->graph_id);
      ++r.summary.kernel_runs;
      r.summary.run_ms += p->wall_ms;
    } else if (auto* p = e.get<EagerTiming>()) {
      eager[p->graph_id].push_back(p->ms);
      eager_runs[p->graph_id] += p->runs;
    } else if (auto* p = e.get<Fallback>()) {
      r.fallbacks.push_back(*p);
    } else if (auto* p = e.get<LoopRun>()) {
      r.loops.push_back(*p);
    } else if (auto* p = e.get<PathChoice>()) {
      r.path_choices.push_back(*p);
    } else if (auto* p = e.get<Transfer>()) {
      auto& t = r.transfers;
      if (p->direction == "h2d") {
        ++t.h2d_count, t.h2d_bytes += p->bytes, t.h2d_ms += p->ms;
      } else {
        ++t.d2h_count, t.d2h_bytes += p->bytes, t.d2h_ms += p->ms;
      }
      r.summary.transfer_bytes += p->bytes;
      r.summary.transfer_ms += p->ms;
    } else if (auto* p = e.get<KernelSource>()) {
      note_kernel(p->name);
      graph_ids.insert(p->graph_id);
    } else if (auto* p = e.get<FusionGraph>()) {
      graph_ids.insert(p->graph_id);
    }
  }
  graph_ids.erase(-1);

  // Sources and pictures: the latest one in the whole stream for what the window touched.
  std::map<std::string, const KernelSource*> sources;
  std::map<std::int64_t, const FusionGraph*> pictures;
  for (const auto& e : events) {
    if (auto* p = e.get<KernelSource>())
      sources[p->name] = p;
    if (auto* p = e.get<FusionGraph>(); p && graph_ids.count(p->graph_id))
      pictures[p->graph_id] = p;
  }

  std::map<std::int64_t, std::pair<std::int64_t, double>> graph_runs; // id -> (runs, ms)
  for (const auto& name : kernel_order) {
    KernelSummary k;
    k.name = name;
    if (auto it = sources.find(name); it != sources.end()) {
      const KernelSource& s = *it->second;
      k.graph_id = s.graph_id;
      k.target = s.target;
      k.source = s.source;
      k.ptx = s.ptx;
      k.ops = s.ops;
    }
    if (auto it = run_ms.find(name); it != run_ms.end()) {
      const auto& v = it->second;
      k.runs = static_cast<std::int64_t>(v.size());
      for (double ms : v)
        k.total_ms += ms;
      k.median_ms = median(v);
      k.min_ms = *std::min_element(v.begin(), v.end());
      k.max_ms = *std::max_element(v.begin(), v.end());
      k.bytes = run_bytes[name];
      if (k.total_ms > 0 && k.bytes > 0)
        k.gbps = static_cast<double>(k.bytes) / (k.total_ms * 1e6);
      const KernelRun* last = last_run[name];
      k.graph_id = last->graph_id;
      k.target = last->target;
      auto& g = graph_runs[k.graph_id];
      g.first = std::max(g.first, k.runs);
      g.second += k.total_ms;
    }
    r.kernels.push_back(std::move(k));
  }
  std::stable_sort(r.kernels.begin(), r.kernels.end(),
                   [](const auto& a, const auto& b) { return a.total_ms > b.total_ms; });

  for (const auto& [id, g] : pictures)
    r.graphs.push_back(*g);

  // Speedup: eager time for as many executions as were run compiled, over the kernel time.
  for (const auto& [id, runs_ms] : graph_runs) {
    if (id < 0)
      continue;
    GraphTiming t;
    t.graph_id = id;
    t.runs = runs_ms.first;
    t.compiled_ms = t.runs > 0 ? runs_ms.second / static_cast<double>(t.runs) : 0.0;
    if (auto it = eager.find(id); it != eager.end()) {
      double sum = 0;
      for (double ms : it->second)
        sum += ms;
      t.eager_ms = sum / static_cast<double>(it->second.size());
      t.eager_runs = eager_runs[id];
      if (t.compiled_ms > 0) {
        t.speedup = t.eager_ms / t.compiled_ms;
        r.summary.eager_ms += t.eager_ms * static_cast<double>(t.runs);
        r.summary.compiled_ms += runs_ms.second;
      }
    }
    r.graph_timings.push_back(t);
  }
  if (r.summary.compiled_ms > 0)
    r.summary.speedup = r.summary.eager_ms / r.summary.compiled_ms;

  std::stable_sort(r.breaks.begin(), r.breaks.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });
  r.summary.graphs = static_cast<std::int64_t>(graph_ids.size());
  r.summary.unique_breaks = static_cast<std::int64_t>(r.breaks.size());
  r.summary.recompiles = static_cast<std::int64_t>(r.recompiles.size());
  r.summary.kernels = static_cast<std::int64_t>(r.kernels.size());
  r.summary.fallbacks = static_cast<std::int64_t>(r.fallbacks.size());
  return r;
}

Report Report::from_session(const Session& session, std::optional<int> last_n_traces) {
  return from_events(session.snapshot(), last_n_traces);
}

void to_json(nlohmann::json& j, const Report& r) {
  j = nlohmann::json{{"schema", kSchemaName},
                     {"version", kSchemaVersion},
                     {"kind", "report"},
                     {"summary", r.summary},
                     {"traces", r.traces},
                     {"breaks", r.breaks},
                     {"recompiles", r.recompiles},
                     {"compiles", r.compiles},
                     {"kernels", r.kernels},
                     {"graphs", r.graphs},
                     {"graph_timings", r.graph_timings},
                     {"fallbacks", r.fallbacks},
                     {"loops", r.loops},
                     {"path_choices", r.path_choices},
                     {"transfers", r.transfers}};
}

void from_json(const nlohmann::json& j, Report& out) {
  constexpr std::string_view ctx = "report";
  detail::expect_document(j, ctx);
  Report r;
  detail::optional(j, ctx, "summary", r.summary);
  detail::optional(j, ctx, "traces", r.traces);
  detail::optional(j, ctx, "breaks", r.breaks);
  detail::optional(j, ctx, "recompiles", r.recompiles);
  detail::optional(j, ctx, "compiles", r.compiles);
  detail::optional(j, ctx, "kernels", r.kernels);
  detail::optional(j, ctx, "graphs", r.graphs);
  detail::optional(j, ctx, "graph_timings", r.graph_timings);
  detail::optional(j, ctx, "fallbacks", r.fallbacks);
  detail::optional(j, ctx, "loops", r.loops);
  detail::optional(j, ctx, "path_choices", r.path_choices);
  detail::optional(j, ctx, "transfers", r.transfers);
  out = std::move(r);
}
} // namespace npc::prof
