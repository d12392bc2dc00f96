#pragma once
// A compiled CPU graph's steps, run in C++: fused kernels (outputs allocated, inputs
// checked against the layout the code was compiled for), views and in-place element
// updates through NumPy's own getitem/setitem, and any other NumPy step as a Python
// callable. A Python loop unrolled into a graph runs thousands of steps per call; the
// same loop in Python cost 3-7 us per step, more than NumPy's own work on small arrays.
//
// Values live in a Python list (the callables index it). Only the array object's
// fields common to NumPy 1.x and 2.x are read (pybind11's PyArray_Proxy); dtypes are
// compared by identity first, then by Python equality (descr layouts differ).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

namespace npc {

class StepProgram {
public:
  StepProgram(int64_t n_slots, std::vector<int64_t> outputs);

  struct Input {
    int64_t slot;
    pybind11::dtype dtype;
    int64_t itemsize;
    std::vector<int64_t> shape;
    int mode;                     // 0: C order, 1: these element strides, 2: strides to P[]
    std::vector<int64_t> strides; // mode 1
  };
  struct Output {
    int64_t slot;
    pybind11::dtype dtype;
    int64_t itemsize;
    std::vector<int64_t> shape;
    int64_t nbytes;
    bool pooled;    // from the runtime's BufferPool (large), else NumPy's allocator
    int scalar;     // 0-d: 0 stays an array, 1 becomes a NumPy scalar, 2 ask `scalarize`
  };

  void add_kernel(const std::string& name, uintptr_t address, uintptr_t part_address,
                  std::vector<Output> outputs, std::vector<Input> inputs,
                  std::vector<int64_t> extents, int64_t n_outer, int64_t grain, bool empty,
                  int64_t chunks, std::vector<int64_t> part_itemsizes, bool flag);
  void add_getitem(int64_t slot, int64_t src, pybind11::object key);
  // base[key] = value in place when base is a plain writable array (C order when
  // c_order); else fallback(vals). value is a slot (>= 0) or the constant.
  void add_setitem(int64_t slot, int64_t base, pybind11::object key, int64_t value_slot,
                   pybind11::object value, bool c_order, pybind11::object fallback);
  void add_call(int64_t slot, pybind11::object fn);
  void set_scalarize(pybind11::object fn) { scalarize_ = std::move(fn); }
  // slots to let go of after each step (their last reader): an unrolled loop's
  // intermediates would otherwise all live until the call ends (100 steps of a
  // 4M-point stencil: 3.2 GB)
  void set_releases(std::vector<std::vector<int64_t>> releases) { releases_ = std::move(releases); }

  // (outputs, [(kernel name, ms)] when timed else None)
  pybind11::tuple run(const pybind11::list& leaves, bool timed);
  // The program run `count` times as a loop body, the first `timed` runs timed.
  // `args` (the caller's list, updated in place) holds the body's arguments; the
  // leaves of each run are args[leaf_src[...]]. Before a run, `views(k)` (k: the run's
  // number; none when None) gives the arguments at view_pos (an indexed loop's `y[t]`,
  // `x[t - 1]`), and no written argument may overlap another it is paired with in
  // `overlaps` (memory bounds; itemsizes per argument). After a run, outputs are copied
  // into arguments (writes: (output, arg), `arg[...] = output`, an in-place update of
  // a caller's array) and then replace arguments (feeds: (output, arg)), and arguments
  // move to other places (moves: (from, to), all read before any is set: a stencil's
  // `u_prev, u, u_next = u, u_next, u_prev`). A write of a fresh whole array may
  // instead rebind the argument to it for the next run, the caller's array getting the
  // last value once when the loop ends (StepProgram.cpp, Rebound); with `until`, only
  // where `rebind` says that until() keeps no argument it reads.
  // The outputs at `collect` of every run are kept, a tuple per run (values a loop
  // body hands to Python: `hist.append(v)`); where `until` is not None they go to
  // until(tuple) instead, after the run's writes and before its feeds, and a falsy
  // answer ends the loop after that run, without its feeds (a while loop's condition or
  // an exit test, run in Python on the values the run made: `count` is then only a
  // bound). Its exceptions propagate.
  // (runs completed, the last run's outputs, [(kernel, ms)] of the timed runs, the
  // collected tuples, interrupted). A run that raises (values NumPy must handle, a
  // changed layout), views() returning None or overlapping arguments end the loop
  // before that run, its error cleared and the outputs None; Ctrl-C ends it the same
  // way with `interrupted` true (the caller hands on what was collected, then raises). A Python loop around run() cost 2-3 us per
  // iteration of list building and bookkeeping, more than a small body's kernels.
  pybind11::tuple run_loop(pybind11::list& args, const std::vector<int64_t>& leaf_src,
                           int64_t count, int64_t timed,
                           const std::vector<std::pair<int64_t, int64_t>>& feeds,
                           const std::vector<std::pair<int64_t, int64_t>>& writes,
                           const pybind11::object& views, const std::vector<int64_t>& view_pos,
                           const std::vector<std::pair<int64_t, int64_t>>& overlaps,
                           const std::vector<int64_t>& itemsizes,
                           const std::vector<int64_t>& collect,
                           const pybind11::object& until,
                           const std::vector<std::pair<int64_t, int64_t>>& moves,
                           const pybind11::object& exact, bool rebind = true);

private:
  enum class Kind { Kernel, GetItem, SetItem, Call };
  struct Kernel {
    std::string name;
    void* address;
    void* part_address;
    std::vector<Output> outputs;
    std::vector<Input> inputs;
    std::vector<int64_t> extents;
    int64_t n_outer, grain, chunks;
    bool empty, flag;
    std::vector<int64_t> part_itemsizes;
  };
  struct Step {
    Kind kind = Kind::Call;
    int64_t slot = -1;
    int64_t src = -1;      // getitem: array; setitem: base
    int64_t value = -1;    // setitem: value slot
    size_t kernel = 0;     // index into kernels_
    pybind11::object key, constant, fn;
    bool c_order = false;
  };

  void run_kernel(const Kernel& k, pybind11::list& vals, std::vector<int64_t>& params,
                  std::vector<char*>& bufs, std::vector<pybind11::object>& keep);

  int64_t n_slots_;
  std::vector<int64_t> outputs_;
  std::vector<Step> steps_;
  std::vector<Kernel> kernels_;
  pybind11::object scalarize_;
  std::vector<std::vector<int64_t>> releases_;
};

void bind_step_program(pybind11::module_& m);

} // namespace npc
