#include "StepProgram.hpp"

#include "BufferPool.hpp"
#include "Interrupt.hpp"
#include "KernelLauncher.hpp"
#include "ThreadPool.hpp"

#include <pybind11/stl.h>

#include <chrono>
#include <map>
#include <optional>
#include <stdexcept>

namespace py = pybind11;

namespace npc {

namespace {

constexpr int kCContiguous = 0x0001; // NPY_ARRAY_C_CONTIGUOUS
constexpr int kWriteable = 0x0400;   // NPY_ARRAY_WRITEABLE

py::detail::PyArray_Proxy* proxy(PyObject* a) { return py::detail::array_proxy(a); }

bool is_exact_ndarray(PyObject* o) {
  // np.ndarray itself: subclasses (matrix, masked arrays) take NumPy's own path
  static PyObject* ndarray = reinterpret_cast<PyObject*>(py::detail::npy_api::get().PyArray_Type_);
  return reinterpret_cast<PyObject*>(Py_TYPE(o)) == ndarray;
}

bool same_dtype(PyObject* have, const py::dtype& want) {
  if (have == want.ptr())
    return true;
  int r = PyObject_RichCompareBool(have, want.ptr(), Py_EQ);
  if (r < 0)
    throw py::error_already_set();
  return r == 1;
}

// The element strides the kernel reads from P[] (mode 2), after checking the layout
// the code was compiled for; throws RuntimeError (the engine runs the graph in NumPy).
void check_input(PyObject* a, const StepProgram::Input& in, int64_t itemsize,
                 std::vector<int64_t>& params) {
  // itemsize from Python: pybind11 < 2.12 reads descr fields in NumPy 1's layout
  auto* p = proxy(a);
  if (!same_dtype(p->descr, in.dtype) || p->nd != static_cast<int>(in.shape.size()))
    throw std::runtime_error("kernel input changed dtype or shape");
  for (int d = 0; d < p->nd; ++d)
    if (p->dimensions[d] != in.shape[d])
      throw std::runtime_error("kernel input changed dtype or shape");
  if (in.mode == 0) {
    if (!(p->flags & kCContiguous))
      throw std::runtime_error("kernel input is no longer contiguous");
    return;
  }
  for (int d = 0; d < p->nd; ++d)
    if (p->strides[d] % itemsize)
      throw std::runtime_error("kernel input strides are not whole elements");
  if (in.mode == 1) {
    for (int d = 0; d < p->nd; ++d)
      if (p->strides[d] / itemsize != in.strides[d])
        throw std::runtime_error("kernel input strides changed");
    return;
  }
  for (int d = 0; d < p->nd; ++d)
    params.push_back(p->strides[d] / itemsize);
}

// An uninitialized C-ordered array: from the BufferPool (pages already faulted in) or
// from NumPy's allocator.
py::object new_output(const StepProgram::Output& o) {
  // strides spelled out: pybind11 < 2.12 would read the itemsize in NumPy 1's layout
  std::vector<int64_t> strides(o.shape.size());
  int64_t n = o.itemsize;
  for (size_t d = o.shape.size(); d-- > 0;) {
    strides[d] = n;
    n *= o.shape[d];
  }
  if (!o.pooled)
    return py::array(o.dtype, o.shape, strides);
  struct Block {
    void* p;
    size_t n;
  };
  auto* b = new Block{BufferPool::global().acquire(static_cast<size_t>(o.nbytes)),
                      static_cast<size_t>(o.nbytes)};
  py::capsule owner(b, [](void* v) {
    auto* blk = static_cast<Block*>(v);
    BufferPool::global().release(blk->p, blk->n);
    delete blk;
  });
  return py::array(o.dtype, o.shape, strides, b->p, owner);
}

} // namespace

StepProgram::StepProgram(int64_t n_slots, std::vector<int64_t> outputs)
    : n_slots_(n_slots), outputs_(std::move(outputs)) {}

void StepProgram::add_kernel(const std::string& name, uintptr_t address, uintptr_t part_address,
                             std::vector<Output> outputs, std::vector<Input> inputs,
                             std::vector<int64_t> extents, int64_t n_outer, int64_t grain,
                             bool empty, int64_t chunks, std::vector<int64_t> part_itemsizes,
                             bool flag) {
  if (address == 0)
    throw py::value_error("StepProgram: null kernel address");
  Kernel k{name,    reinterpret_cast<void*>(address), reinterpret_cast<void*>(part_address),
           std::move(outputs), std::move(inputs), std::move(extents), n_outer, std::max<int64_t>(1, grain),
           chunks,  empty, flag, std::move(part_itemsizes)};
  if (k.extents.empty())
    k.extents.push_back(0); // the ABI takes a P[] pointer even when nothing is read there
  Step s;
  s.kind = Kind::Kernel;
  s.kernel = kernels_.size();
  kernels_.push_back(std::move(k));
  steps_.push_back(std::move(s));
}

void StepProgram::add_getitem(int64_t slot, int64_t src, py::object key) {
  Step s;
  s.kind = Kind::GetItem;
  s.slot = slot;
  s.src = src;
  s.key = std::move(key);
  steps_.push_back(std::move(s));
}

void StepProgram::add_setitem(int64_t slot, int64_t base, py::object key, int64_t value_slot,
                              py::object value, bool c_order, py::object fallback) {
  Step s;
  s.kind = Kind::SetItem;
  s.slot = slot;
  s.src = base;
  s.key = std::move(key);
  s.value = value_slot;
  s.constant = std::move(value);
  s.c_order = c_order;
  s.fn = std::move(fallback);
  steps_.push_back(std::move(s));
}

void StepProgram::add_call(int64_t slot, py::object fn) {
  Step s;
  s.kind = Kind::Call;
  s.slot = slot;
  s.fn = std::move(fn);
  steps_.push_back(std::move(s));
}

void StepProgram::run_kernel(const Kernel& k, py::list& vals, std::vector<int64_t>& params,
                             std::vector<char*>& bufs, std::vector<py::object>& keep) {
  params.clear();
  bufs.clear();
  keep.clear();
  for (const auto& o : k.outputs) {
    keep.push_back(new_output(o));
    bufs.push_back(proxy(keep.back().ptr())->data);
  }
  const size_t n_out = keep.size();
  for (const auto& in : k.inputs) {
    PyObject* v = PyList_GET_ITEM(vals.ptr(), in.slot);
    py::object arr;
    if (is_exact_ndarray(v)) {
      arr = py::reinterpret_borrow<py::object>(v);
    } else { // a NumPy or Python scalar (b[i] of a 1-d array), or a subclass
      arr = py::reinterpret_steal<py::object>(
          py::detail::npy_api::get().PyArray_FromAny_(v, nullptr, 0, 0, 0, nullptr));
      if (!arr)
        throw py::error_already_set();
    }
    check_input(arr.ptr(), in, in.itemsize, params);
    bufs.push_back(proxy(arr.ptr())->data);
    keep.push_back(std::move(arr));
  }
  params.insert(params.end(), k.extents.begin(), k.extents.end());
  std::vector<std::vector<int64_t>> parts;
  for (auto size : k.part_itemsizes) {
    parts.emplace_back(static_cast<size_t>((k.chunks * size + 7) / 8));
    bufs.push_back(reinterpret_cast<char*>(parts.back().data()));
  }
  int32_t flag = 0;
  if (k.flag)
    bufs.push_back(reinterpret_cast<char*>(&flag));
  auto& pool = ThreadPool::global();
  // waking the workers costs microseconds: small kernels run here, with the GIL held
  const bool threaded = pool.num_threads() > 1 && k.n_outer >= 2 * k.grain;
  // Ctrl-C stops a long kernel (runtime/Interrupt.hpp): watched for those of more than a
  // few grains of rows, or split in chunks (a watch costs two sigaction calls)
  std::optional<InterruptWatch> watch;
  if (k.n_outer >= 8 * k.grain || k.part_address)
    watch.emplace();
  {
    std::optional<py::gil_scoped_release> release;
    if (threaded || k.part_address)
      release.emplace();
    if (k.part_address)
      KernelLauncher::run(pool, k.part_address, bufs.data(), params.data(), k.chunks, 1);
    if (!k.empty && !(watch && interrupt_requested().load()))
      KernelLauncher::run(pool, k.address, bufs.data(), params.data(), k.n_outer, k.grain);
  }
  if (watch && watch->active() && interrupt_requested().exchange(false)) {
    // stopped half-way: the outputs are dropped, and Python's handler makes the error
    if (PyErr_CheckSignals() == 0)
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (flag)
    // a float->int cast out of range / of NaN, a negative integer power, an integer
    // division by zero: the engine reruns the graph in NumPy (its values, warnings, errors)
    throw std::runtime_error("values NumPy must handle (an out-of-range cast, a negative integer "
                             "power or an integer division by zero)");
  for (size_t i = 0; i < n_out; ++i) {
    const auto& o = k.outputs[i];
    py::object v = std::move(keep[i]);
    if (o.scalar == 1) {
      v = py::reinterpret_steal<py::object>(PyObject_GetItem(v.ptr(), py::tuple().ptr()));
      if (!v)
        throw py::error_already_set();
    }
    PyList_SetItem(vals.ptr(), o.slot, v.release().ptr());
    if (o.scalar == 2) {
      py::object s = scalarize_(o.slot, vals);
      PyList_SetItem(vals.ptr(), o.slot, s.release().ptr());
    }
  }
}

py::tuple StepProgram::run(const py::list& leaves, bool timed) {
  const auto n_leaves = static_cast<int64_t>(py::len(leaves));
  if (n_leaves > n_slots_)
    throw py::value_error("StepProgram.run: more leaves than slots");
  py::list vals(n_slots_);
  for (int64_t i = 0; i < n_slots_; ++i) {
    PyObject* v = i < n_leaves ? PyList_GET_ITEM(leaves.ptr(), i) : Py_None;
    Py_INCREF(v);
    PyList_SET_ITEM(vals.ptr(), i, v); // the new list holds None: nothing to release
  }
  py::list times;
  std::vector<int64_t> params;
  std::vector<char*> bufs;
  std::vector<py::object> keep;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const auto& s = steps_[i];
    switch (s.kind) {
    case Kind::Kernel: {
      const auto& k = kernels_[s.kernel];
      if (!timed) {
        run_kernel(k, vals, params, bufs, keep);
        break;
      }
      const auto t0 = std::chrono::steady_clock::now();
      run_kernel(k, vals, params, bufs, keep);
      const std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - t0;
      times.append(py::make_tuple(k.name, ms.count()));
      break;
    }
    case Kind::GetItem: {
      PyObject* r = PyObject_GetItem(PyList_GET_ITEM(vals.ptr(), s.src), s.key.ptr());
      if (!r)
        throw py::error_already_set();
      PyList_SetItem(vals.ptr(), s.slot, r);
      break;
    }
    case Kind::SetItem: {
      PyObject* base = PyList_GET_ITEM(vals.ptr(), s.src);
      const int flags = is_exact_ndarray(base) ? proxy(base)->flags : 0;
      if (!(flags & kWriteable) || (s.c_order && !(flags & kCContiguous))) {
        py::object r = s.fn(vals); // calls.update: a new version, as NumPy would
        PyList_SetItem(vals.ptr(), s.slot, r.release().ptr());
        break;
      }
      PyObject* value = s.value >= 0 ? PyList_GET_ITEM(vals.ptr(), s.value) : s.constant.ptr();
      if (PyObject_SetItem(base, s.key.ptr(), value) < 0)
        throw py::error_already_set();
      Py_INCREF(base);
      PyList_SetItem(vals.ptr(), s.slot, base);
      break;
    }
    case Kind::Call: {
      py::object r = s.fn(vals);
      PyList_SetItem(vals.ptr(), s.slot, r.release().ptr());
      break;
    }
    }
    if (i < releases_.size())
      for (auto slot : releases_[i]) {
        Py_INCREF(Py_None);
        PyList_SetItem(vals.ptr(), slot, Py_None);
      }
  }
  py::list outs(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) {
    PyObject* v = PyList_GET_ITEM(vals.ptr(), outputs_[i]);
    Py_INCREF(v);
    PyList_SET_ITEM(outs.ptr(), i, v);
  }
  return py::make_tuple(outs, timed ? py::object(times) : py::object(py::none()));
}

namespace {

// The bytes an array argument may touch, [low, high), as np.may_share_memory's bounds
// test sees them; an empty range for anything else
std::pair<intptr_t, intptr_t> bounds(PyObject* a, int64_t itemsize) {
  if (itemsize <= 0 || !is_exact_ndarray(a))
    return {0, 0};
  auto* p = proxy(a);
  intptr_t lo = reinterpret_cast<intptr_t>(p->data), hi = lo + itemsize;
  for (int d = 0; d < p->nd; ++d) {
    if (p->dimensions[d] == 0)
      return {0, 0};
    const intptr_t span = static_cast<intptr_t>(p->strides[d]) * (p->dimensions[d] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

// Whether two bounds() ranges, both non-empty, meet
bool meets(std::pair<intptr_t, intptr_t> r, std::pair<intptr_t, intptr_t> q) {
  return r.first < r.second && q.first < q.second && r.first < q.second && q.first < r.second;
}

// The writes of a loop that may rebind the argument instead of copying into it: the
// run's output, a fresh C-ordered array of the argument's dtype and shape, becomes the
// argument of the next run, and the caller's array gets the last value once, when the
// loop ends however it ends. A stencil step `u[1:-1] = ...` computes all of u into a
// new array (its reads overlap its writes); copying that back every run cost as much
// as the kernel. Not where until() may keep the arguments it reads (`rebind` false:
// the caller knows), nor for an output also collected, or an argument written twice;
// views() made of the caller's array take it back first (Rebound::refresh).
std::vector<int64_t> rebindable(const py::list& args,
                                const std::vector<std::pair<int64_t, int64_t>>& writes,
                                const py::object& until, bool rebind,
                                const std::vector<int64_t>& collect) {
  std::vector<int64_t> ok(writes.size(), 0);
  if (!until.is_none() && !rebind)
    return ok;
  for (size_t w = 0; w < writes.size(); ++w) {
    bool alone = true;
    for (size_t x = 0; x < writes.size(); ++x)
      if (x != w && (writes[x].first == writes[w].first || writes[x].second == writes[w].second))
        alone = false;
    for (auto c : collect)
      if (c == writes[w].first)
        alone = false;
    PyObject* t = PyList_GET_ITEM(args.ptr(), writes[w].second);
    constexpr int need = kCContiguous | kWriteable;
    ok[w] = alone && is_exact_ndarray(t) && (proxy(t)->flags & need) == need;
  }
  return ok;
}

class Rebound {
public:
  Rebound(py::list& args, const std::vector<std::pair<int64_t, int64_t>>& writes,
          std::vector<int64_t> ok)
      : args_(args), writes_(writes), ok_(std::move(ok)) {}
  Rebound(const Rebound&) = delete;
  Rebound& operator=(const Rebound&) = delete;
  ~Rebound() {
    // an exception on its way out: the caller's arrays still get the last values
    if (originals_.empty())
      return;
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
    restore();
    PyErr_Clear();
    PyErr_Restore(type, value, trace);
  }

  // Whether write w of output v went to its argument by rebinding: v is a C-ordered
  // array of the argument's dtype and shape, and neither v nor the argument it
  // replaces shares memory with another argument (after the feeds) or a fed output (a
  // view of the argument fed to the next run or collected must keep seeing the updates,
  // as it does with a copy; a view of a constant must not become an argument the
  // program writes).
  bool take(size_t w, PyObject* v, const py::list& got,
            const std::vector<std::pair<int64_t, int64_t>>& feeds,
            const std::vector<int64_t>& collect) {
    if (!ok_[w] || !is_exact_ndarray(v))
      return false;
    const int64_t a = writes_[w].second;
    PyObject* old = PyList_GET_ITEM(args_.ptr(), a);
    auto* pv = proxy(v);
    auto* po = proxy(old);
    if (!(pv->flags & kCContiguous) || !(pv->flags & kWriteable) || pv->nd != po->nd ||
        !same_dtype(pv->descr, py::reinterpret_borrow<py::dtype>(po->descr)))
      return false;
    for (int d = 0; d < pv->nd; ++d)
      if (pv->dimensions[d] != po->dimensions[d])
        return false;
    const auto mine = span(old), theirs = span(v);
    const auto touches = [&](PyObject* x) {
      if (x == old || x == v)
        return true;
      if (!is_exact_ndarray(x))
        return false;
      const auto r = span(x);
      return meets(r, mine) || meets(r, theirs);
    };
    const auto n = static_cast<int64_t>(py::len(args_));
    for (int64_t p = 0; p < n; ++p)
      if (p != a && touches(PyList_GET_ITEM(args_.ptr(), p)))
        return false;
    for (const auto& f : feeds)
      if (touches(PyList_GET_ITEM(got.ptr(), f.first)))
        return false;
    for (auto c : collect)
      if (touches(PyList_GET_ITEM(got.ptr(), c)))
        return false;
    if (originals_.count(a) == 0)
      originals_.emplace(a, py::reinterpret_borrow<py::object>(old));
    Py_INCREF(v);
    PyList_SetItem(args_.ptr(), a, v);
    return true;
  }

  // Before a run, after views() made the arguments at view_pos from the arrays Python
  // holds: a caller's array one of them views gets its values back first (and its place
  // in args), so that the view reads what the runs wrote.
  void refresh(const std::vector<int64_t>& view_pos) {
    for (auto it = originals_.begin(); it != originals_.end();) {
      const auto mine = span(it->second.ptr());
      bool seen = false;
      for (auto p : view_pos) {
        PyObject* x = PyList_GET_ITEM(args_.ptr(), p);
        seen = seen || x == it->second.ptr() || (is_exact_ndarray(x) && meets(span(x), mine));
      }
      if (!seen) {
        ++it;
        continue;
      }
      put_back(it->first, it->second);
      it = originals_.erase(it);
    }
  }

  // The caller's arrays get the values the runs left, and their places in args back.
  void restore() {
    for (auto& [a, original] : originals_) {
      try {
        put_back(a, original);
      } catch (...) {
        originals_.clear();
        throw;
      }
    }
    originals_.clear();
  }

private:
  void put_back(int64_t a, py::object& original) {
    PyObject* now = PyList_GET_ITEM(args_.ptr(), a);
    if (now != original.ptr() && PyObject_SetItem(original.ptr(), Py_Ellipsis, now) < 0)
      throw py::error_already_set();
    PyList_SetItem(args_.ptr(), a, original.release().ptr());
  }

  static std::pair<intptr_t, intptr_t> span(PyObject* x) { return bounds(x, itemsize(x)); }

  // an array's itemsize as NumPy gives it (the descr's layout differs in NumPy 2)
  static int64_t itemsize(PyObject* x) {
    py::object n = py::reinterpret_steal<py::object>(PyObject_GetAttrString(x, "itemsize"));
    if (!n)
      throw py::error_already_set();
    return n.cast<int64_t>();
  }

  py::list& args_;
  const std::vector<std::pair<int64_t, int64_t>>& writes_;
  std::vector<int64_t> ok_;
  std::map<int64_t, py::object> originals_;
};

} // namespace

py::tuple StepProgram::run_loop(py::list& args, const std::vector<int64_t>& leaf_src,
                                int64_t count, int64_t timed,
                                const std::vector<std::pair<int64_t, int64_t>>& feeds,
                                const std::vector<std::pair<int64_t, int64_t>>& writes,
                                const py::object& views, const std::vector<int64_t>& view_pos,
                                const std::vector<std::pair<int64_t, int64_t>>& overlaps,
                                const std::vector<int64_t>& itemsizes,
                                const std::vector<int64_t>& collect,
                                const py::object& until,
                                const std::vector<std::pair<int64_t, int64_t>>& moves,
                                const py::object& exact, bool rebind) {
  const auto n = static_cast<int64_t>(py::len(args));
  const auto n_out = static_cast<int64_t>(outputs_.size());
  auto bad = [&](int64_t arg) { return arg < 0 || arg >= n; };
  for (const auto* pairs : {&feeds, &writes})
    for (const auto& [o, a] : *pairs)
      if (o < 0 || o >= n_out || bad(a))
        throw py::value_error("StepProgram.run_loop: output or argument out of range");
  for (const auto* pairs : {&overlaps, &moves})
    for (const auto& [a, b] : *pairs)
      if (bad(a) || bad(b))
        throw py::value_error("StepProgram.run_loop: argument pair out of range");
  for (auto a : leaf_src)
    if (bad(a))
      throw py::value_error("StepProgram.run_loop: leaf out of range");
  for (auto a : view_pos)
    if (bad(a))
      throw py::value_error("StepProgram.run_loop: view out of range");
  if (static_cast<int64_t>(itemsizes.size()) != n)
    throw py::value_error("StepProgram.run_loop: one itemsize per argument");
  for (auto o : collect)
    if (o < 0 || o >= n_out)
      throw py::value_error("StepProgram.run_loop: collected output out of range");
  py::object outs = py::none();
  py::list times, collected;
  Rebound rebound(args, writes, rebindable(args, writes, until, rebind, collect));
  const auto stop = [&](int64_t it, bool interrupted = false) {
    rebound.restore();
    return py::make_tuple(it, py::none(), times, collected, interrupted);
  };
  for (int64_t it = 0; it < count; ++it) {
    // Ctrl-C between iterations: the flag (the kernel's sigwait thread, a chained
    // handler) or Python's own pending signal (cleared: the caller raises)
    if (interrupt_requested().exchange(false))
      return stop(it, true);
    if (PyErr_CheckSignals() != 0) {
      if (!PyErr_ExceptionMatches(PyExc_KeyboardInterrupt))
        throw py::error_already_set();
      PyErr_Clear();
      return stop(it, true);
    }
    if (!views.is_none()) {
      py::object got = views(it);
      if (got.is_none())
        return stop(it);
      auto seq = py::reinterpret_borrow<py::sequence>(got);
      if (static_cast<size_t>(py::len(seq)) != view_pos.size())
        throw py::value_error("StepProgram.run_loop: views() gave the wrong number of values");
      for (size_t m = 0; m < view_pos.size(); ++m) {
        py::object v = seq[m];
        PyList_SetItem(args.ptr(), view_pos[m], v.release().ptr());
      }
      rebound.refresh(view_pos);
    }
    for (const auto& [a, b] : overlaps) {
      const auto ra = bounds(PyList_GET_ITEM(args.ptr(), a), itemsizes[a]);
      const auto rb = bounds(PyList_GET_ITEM(args.ptr(), b), itemsizes[b]);
      // bounds that meet may still share no element (a column sweep's u[:, j] and
      // u[:, j - 1] interleave): exact(a, b) decides then, where it is given
      if (meets(ra, rb) &&
          (exact.is_none() || exact(py::handle(PyList_GET_ITEM(args.ptr(), a)),
                                    py::handle(PyList_GET_ITEM(args.ptr(), b)))
                                  .cast<bool>()))
        return stop(it);
    }
    py::list leaves(leaf_src.size());
    for (size_t l = 0; l < leaf_src.size(); ++l) {
      PyObject* v = PyList_GET_ITEM(args.ptr(), leaf_src[l]);
      Py_INCREF(v);
      PyList_SET_ITEM(leaves.ptr(), l, v);
    }
    py::list got;
    try {
      py::tuple r = run(leaves, it < timed);
      got = r[0].cast<py::list>();
      if (it < timed)
        for (auto t : r[1].cast<py::list>())
          times.append(t);
    } catch (py::error_already_set& e) {
      if (e.matches(PyExc_KeyboardInterrupt))
        return stop(it, true);   // a long kernel stopped half-way: its outputs dropped
      if (e.matches(PyExc_MemoryError))
        throw;
      return stop(it);
    } catch (const std::runtime_error&) {
      return stop(it);
    }
    for (size_t w = 0; w < writes.size(); ++w) {
      const auto [o, a] = writes[w];
      PyObject* v = PyList_GET_ITEM(got.ptr(), o);
      PyObject* target = PyList_GET_ITEM(args.ptr(), a);
      if (v == target || rebound.take(w, v, got, feeds, collect))
        continue;
      if (PyObject_SetItem(target, Py_Ellipsis, v) < 0)
        throw py::error_already_set();
    }
    py::tuple kept(collect.size());
    for (size_t c = 0; c < collect.size(); ++c) {
      PyObject* v = PyList_GET_ITEM(got.ptr(), collect[c]);
      Py_INCREF(v);
      PyTuple_SET_ITEM(kept.ptr(), c, v);
    }
    if (!until.is_none()) {
      // before the feeds: the test reads the run's arguments as the body saw them
      // (an exit test `max(abs(x_new - x)) < tol` before `x = x_new`)
      py::object go = until(kept);
      const int truth = PyObject_IsTrue(go.ptr());
      if (truth < 0)
        throw py::error_already_set();
      if (truth == 0)
        return py::make_tuple(it + 1, got, times, collected, false);
    } else if (!collect.empty()) {
      collected.append(kept);
    }
    std::vector<py::object> moved;
    moved.reserve(moves.size());
    for (const auto& m : moves)
      moved.push_back(py::reinterpret_borrow<py::object>(PyList_GET_ITEM(args.ptr(), m.first)));
    for (const auto& [o, a] : feeds) {
      PyObject* v = PyList_GET_ITEM(got.ptr(), o);
      Py_INCREF(v);
      PyList_SetItem(args.ptr(), a, v);
    }
    for (size_t m = 0; m < moves.size(); ++m)
      PyList_SetItem(args.ptr(), moves[m].second, moved[m].release().ptr());
    outs = std::move(got);
  }
  rebound.restore();
  return py::make_tuple(count, outs, times, collected, false);
}

void bind_step_program(py::module_& m) {
  py::class_<StepProgram>(m, "StepProgram",
                          "A compiled graph's steps run in C++ (kernels, views, in-place "
                          "updates; other NumPy steps as Python callables of the value list).")
      .def(py::init<int64_t, std::vector<int64_t>>(), py::arg("n_slots"), py::arg("outputs"))
      .def(
          "add_kernel",
          [](StepProgram& sp, const std::string& name, uintptr_t address, uintptr_t part_address,
             const py::list& outputs, const py::list& inputs, std::vector<int64_t> extents,
             int64_t n_outer, int64_t grain, bool empty, int64_t chunks,
             std::vector<int64_t> part_itemsizes, bool flag) {
            // outputs: (slot, dtype, itemsize, shape, nbytes, pooled, scalar);
            // inputs: (slot, dtype, itemsize, shape, mode, strides or None)
            std::vector<StepProgram::Output> outs;
            for (auto o : outputs) {
              auto t = o.cast<py::tuple>();
              outs.push_back({t[0].cast<int64_t>(), t[1].cast<py::dtype>(), t[2].cast<int64_t>(),
                              t[3].cast<std::vector<int64_t>>(), t[4].cast<int64_t>(),
                              t[5].cast<bool>(), t[6].cast<int>()});
            }
            std::vector<StepProgram::Input> ins;
            for (auto i : inputs) {
              auto t = i.cast<py::tuple>();
              ins.push_back({t[0].cast<int64_t>(), t[1].cast<py::dtype>(), t[2].cast<int64_t>(),
                             t[3].cast<std::vector<int64_t>>(), t[4].cast<int>(),
                             t[5].is_none() ? std::vector<int64_t>{}
                                            : t[5].cast<std::vector<int64_t>>()});
            }
            sp.add_kernel(name, address, part_address, std::move(outs), std::move(ins),
                          std::move(extents), n_outer, grain, empty, chunks,
                          std::move(part_itemsizes), flag);
          },
          py::arg("name"), py::arg("address"), py::arg("part_address"), py::arg("outputs"),
          py::arg("inputs"), py::arg("extents"), py::arg("n_outer"), py::arg("grain"),
          py::arg("empty"), py::arg("chunks"), py::arg("part_itemsizes"), py::arg("flag"))
      .def("add_getitem", &StepProgram::add_getitem, py::arg("slot"), py::arg("src"), py::arg("key"))
      .def("add_setitem", &StepProgram::add_setitem, py::arg("slot"), py::arg("base"),
           py::arg("key"), py::arg("value_slot"), py::arg("value"), py::arg("c_order"),
           py::arg("fallback"))
      .def("add_call", &StepProgram::add_call, py::arg("slot"), py::arg("fn"))
      .def("set_scalarize", &StepProgram::set_scalarize, py::arg("fn"))
      .def("set_releases", &StepProgram::set_releases, py::arg("releases"))
      .def("run", &StepProgram::run, py::arg("leaves"), py::arg("timed"))
      .def("run_loop", &StepProgram::run_loop, py::arg("args"), py::arg("leaf_src"),
           py::arg("count"), py::arg("timed"), py::arg("feeds"), py::arg("writes"),
           py::arg("views"), py::arg("view_pos"), py::arg("overlaps"), py::arg("itemsizes"),
           py::arg("collect"), py::arg("until") = py::none(),
           py::arg("moves") = std::vector<std::pair<int64_t, int64_t>>{},
           py::arg("exact") = py::none(), py::arg("rebind") = true);
}

} // namespace npc
