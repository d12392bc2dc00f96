#include "npc/prof/render_text.hpp"

#include "npc/prof/compile_phases.hpp"
#include "npc/prof/schema.hpp"
#include "npc/prof/source_location.hpp"
#include "npc/prof/summary_line.hpp"
#include "npc/prof/text_table.hpp"
#include "npc/prof/units.hpp"

namespace npc::prof {
namespace {
void heading(std::string& o, const std::string& title) { o += "\n" + title + "\n"; }
} // namespace

std::string render_text(const Report& r) {
  std::string o = summary_line(r.summary) + "\n";

  heading(o, "Graph breaks");
  if (r.breaks.empty())
    o += "  none\n";
  for (const auto& b : r.breaks) {
    o += "  " + std::to_string(b.count) + "x  " + b.reason + "\n";
    const auto loc = source_location(b.filename, b.lineno);
    if (!loc.empty() || !b.function.empty())
      o += "      at " + loc + (b.function.empty() ? "" : " in " + b.function) + "\n";
    if (!b.code.empty())
      o += "      | " + b.code + "\n";
    if (!b.hint.empty())
      o += "      hint: " + b.hint + "\n";
  }

  if (!r.recompiles.empty()) {
    heading(o, "Recompilations");
    TextTable t({"function", "where", "graph", "guard that failed"}, {false, false, true, false});
    for (const auto& c : r.recompiles)
      t.add({c.function, source_location(c.filename, c.lineno),
             c.graph_id >= 0 ? std::to_string(c.graph_id) : "", c.reason});
    o += t.str();
  }

  if (!r.fallbacks.empty()) {
    heading(o, "Fallbacks to eager NumPy");
    TextTable t({"graph", "reason", "detail"}, {true, false, false});
    for (const auto& f : r.fallbacks)
      t.add({f.graph_id >= 0 ? std::to_string(f.graph_id) : "", f.reason, f.detail});
    o += t.str();
  }

  if (!r.path_choices.empty()) {
    heading(o, "Path chosen");
    // the loops and host columns only where some function timed that path
    const bool loops = any_loops_path(r.path_choices), host = any_host_path(r.path_choices);
    std::vector<std::string> head{"function", "runs", "compiled", "plain NumPy"};
    std::vector<bool> right{false, false, true, true};
    if (loops) {
      head.push_back("loops compiled");
      right.push_back(true);
    }
    if (host) {
      head.push_back("compiled on the host");
      right.push_back(true);
    }
    head.push_back("why");
    right.push_back(false);
    TextTable t(head, right);
    for (const auto& c : r.path_choices) {
      std::vector<std::string> row{c.function, path_label(c.choice), Units::timed_ms(c.compiled_ms),
                                   Units::timed_ms(c.numpy_ms)};
      if (loops)
        row.push_back(Units::timed_ms(c.loops_ms));
      if (host)
        row.push_back(Units::timed_ms(c.host_ms));
      row.push_back(c.reason);
      t.add(row);
    }
    o += t.str();
  }

  if (!r.loops.empty()) {
    heading(o, "Loops");
    for (const auto& l : r.loops)
      o += "  " + (l.function.empty() ? std::string() : l.function + ": ") + l.summary + "\n";
  }

  TextTable kt({"kernel", "target", "graph", "runs", "total", "median", "min", "max", "GB/s"},
               {false, false, true, true, true, true, true, true, true});
  for (const auto& k : r.kernels)
    if (k.runs)
      kt.add({k.name, k.target, k.graph_id >= 0 ? std::to_string(k.graph_id) : "",
              std::to_string(k.runs), Units::ms(k.total_ms), Units::ms(k.median_ms),
              Units::ms(k.min_ms), Units::ms(k.max_ms),
              k.gbps > 0 ? Units::fixed(k.gbps, k.gbps >= 1 ? 1 : 3) : ""});
  if (!kt.empty()) {
    heading(o, "Kernel timings");
    o += kt.str();
  }

  TextTable gt({"graph", "runs", "compiled/run", "eager/run", "speedup"},
               {true, true, true, true, true});
  for (const auto& g : r.graph_timings)
    if (g.eager_ms > 0)
      gt.add({std::to_string(g.graph_id), std::to_string(g.runs), Units::ms(g.compiled_ms),
              Units::ms(g.eager_ms), Units::speedup(g.speedup)});
  if (!gt.empty()) {
    heading(o, "Compiled vs eager");
    o += gt.str();
  }

  if (!r.compiles.empty()) {
    heading(o, "Compilations");
    TextTable t({"graph", "function", "target", "kernels", "cache", "total", "phases"},
                {true, false, false, true, false, true, false});
    for (const auto& c : r.compiles) {
      std::string phases;
      for (const auto& [name, ms] : ordered_phases(c.phases))
        phases += (phases.empty() ? "" : ", ") + name + " " + Units::fixed(ms, 2);
      t.add({std::to_string(c.graph_id), c.function, c.target, std::to_string(c.kernels), c.cache,
             Units::ms(c.total_ms), phases});
    }
    o += t.str();
  }

  for (const auto& g : r.graphs) {
    heading(o, "Fused graph " + std::to_string(g.graph_id));
    TextTable t({"id", "op", "label", "kernel", "inputs"}, {true, false, false, true, false});
    for (const auto& n : g.nodes) {
      std::string ins;
      for (auto i : n.inputs)
        ins += (ins.empty() ? "" : ", ") + std::to_string(i);
      t.add({std::to_string(n.id), n.op, n.label, n.kernel >= 0 ? std::to_string(n.kernel) : "-",
             ins});
    }
    o += t.str();
    for (const auto& d : g.decisions)
      o += "  - " + d + "\n";
  }

  for (const auto& k : r.kernels) {
    if (k.source.empty())
      continue;
    heading(o, "Kernel " + k.name + " (" + k.target +
                   (k.graph_id >= 0 ? ", graph " + std::to_string(k.graph_id) : "") + ")");
    for (const auto& op : k.ops)
      o += "  " + op.op + (op.lineno > 0 ? " (line " + std::to_string(op.lineno) + ")" : "") +
           (op.text.empty() ? "" : ": " + op.text) + "\n";
    std::string src = k.source;
    if (!src.empty() && src.back() != '\n')
      src += '\n';
    std::size_t start = 0;
    while (start < src.size()) {
      const auto end = src.find('\n', start);
      const auto line = src.substr(start, end - start);
      o += line.empty() ? "\n" : "    " + line + "\n";
      start = end + 1;
    }
  }

  const auto& t = r.transfers;
  if (t.h2d_count + t.d2h_count) {
    heading(o, "Host/device copies");
    TextTable tt({"direction", "copies", "bytes", "time"}, {false, true, true, true});
    if (t.h2d_count)
      tt.add({"h2d", std::to_string(t.h2d_count), Units::bytes(t.h2d_bytes), Units::ms(t.h2d_ms)});
    if (t.d2h_count)
      tt.add({"d2h", std::to_string(t.d2h_count), Units::bytes(t.d2h_bytes), Units::ms(t.d2h_ms)});
    o += tt.str();
  }
  return o;
}
} // namespace npc::prof
