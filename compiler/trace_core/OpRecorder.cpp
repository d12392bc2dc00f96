#include "OpRecorder.hpp"

#include "Broadcast.hpp"
#include "LazyObject.hpp"
#include "NodeObject.hpp"
#include "StorageObject.hpp"
#include "Tokens.hpp"
#include "TraceState.hpp"
#include "UserSite.hpp"

#include <array>
#include <unordered_map>
#include <vector>

namespace npc::trace {
namespace {

constexpr Py_ssize_t kMaxInputs = 2;
constexpr std::size_t kMaxLearned = 4096;

struct Learned {
  PyObject* dtype;
  PyObject* label;
  std::vector<PyObject*> held;  // the ufunc and dtypes whose addresses are in the key
};

std::unordered_map<Tokens, Learned, TokensHash>& learned() {
  static std::unordered_map<Tokens, Learned, TokensHash> map;
  return map;
}

// One call's operands, classified.
struct Operands {
  Tokens key;
  std::array<PyObject*, kMaxInputs> nodes{};   // borrowed nodes of the lazy operands
  std::array<int, kMaxInputs> lazy_index{};    // per operand: index into nodes, or -1
  Py_ssize_t n_lazy = 0;
  bool all_zero_d = true;
};

PyObject* node_of(PyObject* v) {
  auto* l = reinterpret_cast<LazyObject*>(v);
  if (l->node == Py_None || !is_node(l->node) ||
      l->ver != reinterpret_cast<StorageObject*>(l->st)->version) {
    return nullptr;  // a view or a written array: the Python `_n` re-derives it
  }
  return l->node;
}

// False: not a call this path records (Python decides everything about it).
bool classify(PyObject* ufunc, PyObject* const* inputs, Py_ssize_t n, Operands& ops) {
  const Config& c = config();
  ops.key.reserve(2 + 3 * static_cast<std::size_t>(n));
  ops.key.push_back(reinterpret_cast<std::uintptr_t>(ufunc));
  ops.key.push_back(static_cast<std::uint64_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = inputs[i];
    ops.lazy_index[i] = -1;
    if (Py_TYPE(v) == c.lazy_type) {
      if (is_python_number(v)) {  // NumPy's weak rules for it: the Python rules decide
        return false;
      }
      PyObject* node = node_of(v);
      if (!node) {
        return false;
      }
      auto* nd = reinterpret_cast<NodeObject*>(node);
      const bool zero_d = PyTuple_GET_SIZE(nd->shape) == 0;
      ops.all_zero_d = ops.all_zero_d && zero_d;
      ops.key.push_back(kLazy + zero_d);
      ops.key.push_back(reinterpret_cast<std::uintptr_t>(nd->dtype));
      ops.lazy_index[i] = static_cast<int>(ops.n_lazy);
      ops.nodes[ops.n_lazy++] = node;
    } else if (PyFloat_CheckExact(v)) {
      ops.key.push_back(kFloat);
      ops.key.push_back(bits_of(PyFloat_AS_DOUBLE(v)));
    } else if (PyBool_Check(v)) {
      ops.key.push_back(kBool);
      ops.key.push_back(v == Py_True);
    } else if (PyLong_CheckExact(v)) {
      int overflow = 0;
      const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
      if (overflow) {
        return false;
      }
      ops.key.push_back(kInt);
      ops.key.push_back(static_cast<std::uint64_t>(x));
    } else {
      return false;
    }
  }
  return ops.n_lazy > 0;
}

// New reference to the broadcast shape of the lazy operands; nullptr (no error) when
// NumPy would raise: the Python path raises it eagerly.
PyObject* result_shape(const Operands& ops) {
  PyObject* first = reinterpret_cast<NodeObject*>(ops.nodes[0])->shape;
  if (ops.n_lazy == 1) {
    Py_INCREF(first);
    return first;
  }
  PyObject* second = reinterpret_cast<NodeObject*>(ops.nodes[1])->shape;
  if (first == second || PyObject_RichCompareBool(first, second, Py_EQ) == 1) {
    Py_INCREF(first);
    return first;
  }
  std::array<Shape, kMaxInputs> shapes;
  for (Py_ssize_t k = 0; k < ops.n_lazy; ++k) {
    PyObject* t = reinterpret_cast<NodeObject*>(ops.nodes[k])->shape;
    for (Py_ssize_t d = 0; d < PyTuple_GET_SIZE(t); ++d) {
      shapes[k].push_back(PyLong_AsLongLong(PyTuple_GET_ITEM(t, d)));
    }
  }
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return nullptr;
  }
  auto out = broadcast(std::span<const Shape>(shapes.data(), ops.n_lazy));
  if (!out) {
    return nullptr;
  }
  PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(out->size()));
  for (std::size_t d = 0; t && d < out->size(); ++d) {
    PyTuple_SET_ITEM(t, d, PyLong_FromLongLong((*out)[d]));
  }
  return t;
}

// What Tracer.make does: node, storage, lazy array, and the tracer's bookkeeping.
PyObject* record(PyObject* tracer, PyObject* ufunc, PyObject* const* inputs, Py_ssize_t n,
                 const Operands& ops, const Learned& how, PyObject* shape) {
  const Config& c = config();
  PyObject* args = PyTuple_New(n);
  PyObject* in = PyTuple_New(ops.n_lazy);
  PyObject* site = user_site();
  PyObject* result = nullptr;
  if (args && in && site) {
    for (Py_ssize_t i = 0; i < n; ++i) {
      const int k = ops.lazy_index[i];
      PyObject* a = k >= 0 ? c.refs[k] : inputs[i];
      Py_INCREF(a);
      PyTuple_SET_ITEM(args, i, a);
    }
    for (Py_ssize_t k = 0; k < ops.n_lazy; ++k) {
      Py_INCREF(ops.nodes[k]);
      PyTuple_SET_ITEM(in, k, ops.nodes[k]);
    }
    PyObject* node = new_node(ufunc, args, Py_None, in, how.dtype, shape, how.label, site, Py_None);
    PyObject* st = node ? new_storage(c.storage_type, node) : nullptr;
    PyObject* lazy = st ? new_lazy(c.lazy_type, st, node, ops.all_zero_d) : nullptr;
    PyObject* oplist = lazy ? PyObject_GetAttr(tracer, c.s_ops) : nullptr;
    PyObject* lazies = oplist ? PyObject_GetAttr(tracer, c.s_lazies) : nullptr;
    PyObject* ref = lazies ? PyWeakref_NewRef(lazy, nullptr) : nullptr;
    if (ref && PyList_Append(oplist, how.label) == 0 && PyList_Append(lazies, ref) == 0) {
      bool go_on = true;
      if (PyList_GET_SIZE(oplist) > c.op_budget) {  // the tracer may end the trace here
        PyObject* r = PyObject_CallMethodNoArgs(tracer, c.s_over_budget);
        go_on = r != nullptr;
        Py_XDECREF(r);
      }
      if (go_on) {
        result = lazy;
        Py_INCREF(result);
      }
    }
    Py_XDECREF(ref);
    Py_XDECREF(lazies);
    Py_XDECREF(oplist);
    Py_XDECREF(lazy);
    Py_XDECREF(st);
    Py_XDECREF(node);
  }
  Py_XDECREF(args);
  Py_XDECREF(in);
  Py_XDECREF(site);
  return result;
}

// After the Python rules ran a call the cache missed: remember the result dtype when
// they recorded exactly the node `record` would make from the same operands.
void learn(PyObject* ufunc, PyObject* const* inputs, Py_ssize_t n, Operands& ops,
           PyObject* result) {
  const Config& c = config();
  if (Py_TYPE(result) != c.lazy_type) {
    return;
  }
  auto* l = reinterpret_cast<LazyObject*>(result);
  if (!is_node(l->node) || PyTuple_GET_SIZE(l->chain) != 0 ||
      l->scalar != (ops.all_zero_d ? Py_True : Py_False)) {
    return;
  }
  auto* nd = reinterpret_cast<NodeObject*>(l->node);
  if (nd->fn != ufunc || nd->kwargs != Py_None || !PyTuple_CheckExact(nd->args) ||
      PyTuple_GET_SIZE(nd->args) != n || !PyTuple_CheckExact(nd->inputs) ||
      PyTuple_GET_SIZE(nd->inputs) != ops.n_lazy || !PyUnicode_CheckExact(nd->label)) {
    return;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* a = PyTuple_GET_ITEM(nd->args, i);
    const int k = ops.lazy_index[i];
    if (k < 0 ? a != inputs[i] : PyObject_RichCompareBool(a, c.refs[k], Py_EQ) != 1) {
      PyErr_Clear();
      return;
    }
    if (k >= 0 && PyTuple_GET_ITEM(nd->inputs, k) != ops.nodes[k]) {
      return;
    }
  }
  PyObject* shape = result_shape(ops);
  const bool same_shape = shape && PyObject_RichCompareBool(shape, nd->shape, Py_EQ) == 1;
  Py_XDECREF(shape);
  PyObject* sig = PyObject_GetAttr(ufunc, c.s_signature);
  PyObject* nout = PyObject_GetAttr(ufunc, c.s_nout);
  const bool plain = sig == Py_None && nout && PyLong_AsLong(nout) == 1;
  Py_XDECREF(sig);
  Py_XDECREF(nout);
  PyErr_Clear();
  if (!same_shape || !plain) {
    return;
  }
  auto& map = learned();
  if (map.size() >= kMaxLearned) {
    forget_learned();
  }
  Learned entry{nd->dtype, nd->label, {ufunc}};
  for (Py_ssize_t k = 0; k < ops.n_lazy; ++k) {
    entry.held.push_back(reinterpret_cast<NodeObject*>(ops.nodes[k])->dtype);
  }
  Py_INCREF(entry.dtype);
  Py_INCREF(entry.label);
  for (PyObject* h : entry.held) {
    Py_INCREF(h);
  }
  map.emplace(std::move(ops.key), std::move(entry));
}

PyObject* slow(PyObject* self, PyObject* ufunc, PyObject* const* inputs, Py_ssize_t n) {
  std::array<PyObject*, 3 + kMaxInputs> args{self, ufunc, config().s_call};
  for (Py_ssize_t i = 0; i < n; ++i) {
    args[3 + i] = inputs[i];
  }
  return PyObject_Vectorcall(config().slow_ufunc, args.data(), 3 + n, nullptr);
}

} // namespace

PyObject* call_ufunc(PyObject* ufunc, PyObject* const* inputs, Py_ssize_t n) {
  const Config& c = config();
  PyObject* self = inputs[0];
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyObject_TypeCheck(inputs[i], &LazyBaseType)) {
      self = inputs[i];
      break;
    }
  }
  PyObject* tracer = current_tracer();
  Operands ops;
  if (!c.ready || !tracer || !classify(ufunc, inputs, n, ops)) {
    return slow(self, ufunc, inputs, n);
  }
  auto it = learned().find(ops.key);
  if (it == learned().end()) {
    PyObject* r = slow(self, ufunc, inputs, n);
    if (r && current_tracer() == tracer) {
      learn(ufunc, inputs, n, ops, r);
    }
    return r;
  }
  PyObject* shape = result_shape(ops);
  if (!shape) {
    return slow(self, ufunc, inputs, n);
  }
  PyObject* r = record(tracer, ufunc, inputs, n, ops, it->second, shape);
  Py_DECREF(shape);
  return r;
}

PyObject* array_ufunc(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Config& c = config();
  if (!c.ready) {
    PyErr_SetString(PyExc_RuntimeError, "npcompile trace core is not configured");
    return nullptr;
  }
  const Py_ssize_t n = nargs - 2;
  const bool plain_call = nargs >= 3 && n <= kMaxInputs &&
                          (!kwnames || PyTuple_GET_SIZE(kwnames) == 0) &&
                          PyUnicode_Check(args[1]) &&
                          PyUnicode_Compare(args[1], c.s_call) == 0;
  if (plain_call) {
    return call_ufunc(args[0], args + 2, n);
  }
  if (PyErr_Occurred()) {
    return nullptr;
  }
  // everything else (reduce, out=, dtype=, ...) is the Python rules' business
  std::vector<PyObject*> full(static_cast<std::size_t>(nargs) + 1 +
                              (kwnames ? static_cast<std::size_t>(PyTuple_GET_SIZE(kwnames)) : 0));
  full[0] = self;
  for (std::size_t i = 1; i < full.size(); ++i) {
    full[i] = args[i - 1];
  }
  return PyObject_Vectorcall(c.slow_ufunc, full.data(), nargs + 1, kwnames);
}

Py_ssize_t learned_count() { return static_cast<Py_ssize_t>(learned().size()); }

void forget_learned() {
  for (auto& [key, entry] : learned()) {
    Py_DECREF(entry.dtype);
    Py_DECREF(entry.label);
    for (PyObject* h : entry.held) {
      Py_DECREF(h);
    }
  }
  learned().clear();
}

} // namespace npc::trace
