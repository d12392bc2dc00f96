#pragma once
// One of every event type, filled in, for the profiler tests.
#include <vector>

#include "npc/prof/event.hpp"
#include "npc/prof/session.hpp"

namespace npc::prof::test {
inline std::vector<EventData> one_of_each() {
  return {
      TraceStart{"step", "cell.py", 3},
      TraceEnd{"step", 2, 1},
      GraphBreak{"bool() of a traced array", "cell.py", 7, "use np.where", "step",
                 "if x.sum() > 0:"},
      Compile{
          4, "step", "cuda", 2, {{"trace", 0.5}, {"codegen", 0.25}, {"jit", 4.0}}, 4.75, "disk"},
      Recompile{"step", "cell.py", 3, "x: dtype float64 -> float32", 4},
      KernelRun{"k_add_mul", 4, "cuda", 0.125, 8000000},
      EagerTiming{4, 1.5},
      Fallback{"codegen failed", 4, "unsupported dtype complex64"},
      Transfer{"h2d", 4096, 0.01},
      KernelSource{"k_add_mul",
                   4,
                   "cuda",
                   "extern \"C\" __global__ void k() {}",
                   ".version 8.5",
                   {{"add", 5, "z = x + y"}, {"multiply", 6, "w = z * 2"}}},
      FusionGraph{4,
                  {{0, "input", "x", -1, {}},
                   {1, "add", "x + 1", 0, {0}},
                   {2, "multiply", "z * 2", 0, {1}}},
                  {"add+multiply: pointwise chain"}},
      PathChoice{"step", "numpy", 0.5, 0.25, "plain NumPy is faster for these arguments"},
      LoopRun{"line 9: 99 iterations, one compiled kernel (k_add_mul)", 4, "step", 9,
              "u[1:-1] = u[1:-1] + c * u[2:]", "k_add_mul", 99},
  };
}

// A session with two traces: breaks (one repeated), a recompile, two kernels with source,
// a fused graph, eager timings.
inline void fill_sample(Session& s) {
  auto at = [&](std::int64_t ts, EventData d) { s.append(Event{ts, 1, std::move(d)}); };
  at(10, TraceStart{"f", "a.py", 1});
  at(20, Compile{0, "f", "cpu", 2, {{"trace", 1.0}, {"jit", 2.0}}, 3.0, "miss"});
  at(21, FusionGraph{
             0,
             {{0, "input", "x", -1, {}}, {1, "exp", "np.exp(x)", 0, {0}}, {2, "sum", "s", 1, {1}}},
             {"exp and sum split: sum output is scalar"}});
  at(22, KernelSource{"kern_exp",
                      0,
                      "cpu",
                      "for (long i = 0; i < n; ++i) y[i] = exp(x[i]);",
                      "",
                      {{"exp", 2, "y = np.exp(x)"}}});
  at(23, KernelSource{"kern_sum", 0, "cpu", "double acc = 0; // sum", "", {}});
  at(30, KernelRun{"kern_exp", 0, "cpu", 1.0, 1000000});
  at(31, KernelRun{"kern_sum", 0, "cpu", 0.5, 500000});
  at(32, EagerTiming{0, 6.0});
  at(40, GraphBreak{"print() of a traced array", "a.py", 5, "print later", "f", "print(y)"});
  at(50, TraceEnd{"f", 1, 1});
  at(60, TraceStart{"f", "a.py", 1});
  at(61, Recompile{"f", "a.py", 1, "x: dtype float64 -> float32", 1});
  at(62, Compile{0, "f", "cpu", 2, {{"trace", 0.1}}, 0.1, "memory"});
  at(70, KernelRun{"kern_exp", 0, "cpu", 3.0, 1000000});
  at(71, KernelRun{"kern_sum", 0, "cpu", 0.5, 500000});
  at(72, KernelRun{"kern_exp", 0, "cpu", 2.0, 1000000});
  at(73, KernelRun{"kern_sum", 0, "cpu", 0.5, 500000});
  at(80, GraphBreak{"print() of a traced array", "a.py", 5, "", "f", "print(y)"});
  at(81, GraphBreak{"print() of a traced array", "a.py", 5, "", "f", "print(y)"});
  at(82, GraphBreak{"bool() of a traced array", "a.py", 9, "", "f", "if y.any():"});
  at(90, TraceEnd{"f", 1, 3});
}
} // namespace npc::prof::test
