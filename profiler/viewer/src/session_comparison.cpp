#include "npc/viewer/session_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

namespace npc::viewer {
namespace {
// Per function, from one report: what its traces, breaks, compiles and kernels add up to.
struct Totals {
  std::int64_t calls = 0, breaks = 0;
  double compile_ms = 0.0, kernel_ms = 0.0;
};

std::map<std::string, Totals> per_function(const prof::Report& r) {
  std::map<std::string, Totals> out;
  for (const auto& t : r.traces)
    ++out[t.function].calls;
  // a break names the frame's function (`step`), a trace its qualified name
  // (`make_step.<locals>.step`): the one traced function of that name takes its breaks
  auto traced_as = [&](const std::string& name) {
    std::string found;
    for (const auto& [key, totals] : out) {
      const bool same = key == name || (key.size() > name.size() &&
                                        key.compare(key.size() - name.size(), name.size(), name) == 0 &&
                                        key[key.size() - name.size() - 1] == '.');
      if (same) {
        if (!found.empty())
          return name; // two of them: left as it is
        found = key;
      }
    }
    return found.empty() ? name : found;
  };
  for (const auto& b : r.breaks)
    out[traced_as(b.function)].breaks += b.count;
  std::map<std::int64_t, std::string> graph_function;
  for (const auto& c : r.compiles) {
    out[c.function].compile_ms += c.total_ms;
    graph_function[c.graph_id] = c.function;
  }
  for (const auto& k : r.kernels) {
    const auto it = graph_function.find(k.graph_id);
    out[it == graph_function.end() ? std::string("(graph ") + std::to_string(k.graph_id) + ")"
                                   : it->second]
        .kernel_ms += k.total_ms;
  }
  out.erase(std::string());
  return out;
}

std::string break_key(const prof::BreakSummary& b) {
  return b.reason + "\n" + (b.code.empty() ? b.filename + ":" + std::to_string(b.lineno) : b.code);
}
} // namespace

std::string ComparedBreak::verdict() const {
  if (after == 0)
    return "fixed";
  if (before == 0)
    return "new";
  return after < before ? "fewer" : after > before ? "more" : "same";
}

Change change_of(const ComparedNumber& n) {
  const double scale = std::max(std::abs(n.before), std::abs(n.after));
  if (scale == 0.0 || std::abs(n.after - n.before) <= 0.02 * scale)
    return Change::same;
  return (n.after < n.before) == n.lower_is_better ? Change::better : Change::worse;
}

std::string change_text(double before, double after) {
  char buf[64];
  if (before == after)
    return "same";
  if (before == 0.0)
    return "new";
  const double pct = (after - before) / std::abs(before) * 100.0;
  if (after == 0.0)
    return "-100% (gone)";
  if (after > 0 && before > 0 && (after / before >= 2.0 || before / after >= 2.0)) {
    const bool less = after < before;
    std::snprintf(buf, sizeof buf, "%+.0f%% (%.1fx %s)", pct,
                  less ? before / after : after / before, less ? "less" : "more");
  } else {
    std::snprintf(buf, sizeof buf, "%+.0f%%", pct);
  }
  return buf;
}

SessionComparison SessionComparison::of(const prof::Report& before, const prof::Report& after) {
  SessionComparison c;
  const auto& a = before.summary;
  const auto& b = after.summary;
  auto add = [&](std::string what, double x, double y, bool lower = true, bool time = false) {
    c.summary.push_back({std::move(what), x, y, lower, time});
  };
  add("traced calls and cells", double(a.traces), double(b.traces), false);
  add("of them replayed", double(a.replays), double(b.replays), false);
  add("graphs", double(a.graphs), double(b.graphs));
  add("compiles", double(a.compiles), double(b.compiles));
  add("graph breaks", double(a.graph_breaks), double(b.graph_breaks));
  add("recompiles", double(a.recompiles), double(b.recompiles));
  add("fallbacks", double(a.fallbacks), double(b.fallbacks));
  add("compile time", a.compile_ms, b.compile_ms, true, true);
  add("kernel time", a.run_ms, b.run_ms, true, true);
  add("transfer time", a.transfer_ms, b.transfer_ms, true, true);
  if (a.speedup > 0 || b.speedup > 0)
    add("speedup over eager NumPy", a.speedup, b.speedup, false);

  std::map<std::string, ComparedFunction> fns;
  for (const bool is_after : {false, true}) {
    for (const auto& [name, t] : per_function(is_after ? after : before)) {
      auto& f = fns[name];
      (is_after ? f.calls_after : f.calls_before) = t.calls;
      (is_after ? f.breaks_after : f.breaks_before) = t.breaks;
      (is_after ? f.compile_ms_after : f.compile_ms_before) = t.compile_ms;
      (is_after ? f.kernel_ms_after : f.kernel_ms_before) = t.kernel_ms;
    }
  }
  for (auto& [name, f] : fns) {
    f.function = name;
    c.functions.push_back(f);
  }
  std::stable_sort(c.functions.begin(), c.functions.end(), [](const auto& x, const auto& y) {
    return std::tie(x.kernel_ms_after, x.kernel_ms_before) >
           std::tie(y.kernel_ms_after, y.kernel_ms_before);
  });

  std::map<std::string, ComparedBreak> brk;
  for (const bool is_after : {false, true}) {
    for (const auto& x : (is_after ? after : before).breaks) {
      auto& cb = brk[break_key(x)];
      cb.reason = x.reason;
      cb.code = x.code.empty() ? x.filename + ":" + std::to_string(x.lineno) : x.code;
      cb.where = x.filename + ":" + std::to_string(x.lineno); // the newer side's, last
      (is_after ? cb.after : cb.before) += x.count;
    }
  }
  for (auto& [key, cb] : brk)
    c.breaks.push_back(cb);
  auto rank = [](const ComparedBreak& x) {
    const auto v = x.verdict();
    return v == "fixed" ? 0 : v == "new" ? 1 : 2;
  };
  std::stable_sort(c.breaks.begin(), c.breaks.end(), [&](const auto& x, const auto& y) {
    return std::make_tuple(rank(x), -(x.before + x.after)) <
           std::make_tuple(rank(y), -(y.before + y.after));
  });
  return c;
}
} // namespace npc::viewer
