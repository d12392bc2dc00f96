#include "GraphFingerprint.hpp"

#include "NodeObject.hpp"
#include "Tokens.hpp"
#include "TraceState.hpp"
#include "TypeSupport.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace npc::trace {
namespace {

struct FingerprintObject {
  PyObject_HEAD
  Tokens tokens;
  std::vector<PyObject*> held;    // objects whose addresses are tokens (identity)
  std::vector<PyObject*> values;  // objects compared with ==, in token order
  std::size_t hash;
};

class Builder {
 public:
  Tokens tokens;
  std::vector<PyObject*> held;
  std::vector<PyObject*> values;

  ~Builder() {
    for (PyObject* o : held) Py_DECREF(o);
    for (PyObject* o : values) Py_DECREF(o);
  }

  void identity(PyObject* o) {
    tokens.push_back(kIdentity);
    tokens.push_back(reinterpret_cast<std::uintptr_t>(o));
    Py_INCREF(o);
    held.push_back(o);
  }

  void value(PyObject* o) {  // borrowed
    tokens.push_back(kValue);
    Py_INCREF(o);
    values.push_back(o);
  }

  // One constant argument; false with a Python error set.
  bool arg(PyObject* x) {
    const Config& c = config();
    if (x == Py_None) {
      tokens.push_back(kNone);
    } else if (PyBool_Check(x)) {
      tokens.push_back(kBool);
      tokens.push_back(x == Py_True);
    } else if (PyLong_CheckExact(x)) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(x, &overflow);
      if (overflow) {
        return frozen(x);
      }
      tokens.push_back(kInt);
      tokens.push_back(static_cast<std::uint64_t>(v));
    } else if (PyFloat_CheckExact(x)) {
      tokens.push_back(kFloat);
      tokens.push_back(bits_of(PyFloat_AS_DOUBLE(x)));
    } else if (PyUnicode_CheckExact(x)) {
      value(x);
    } else if (PyTuple_CheckExact(x) || PyList_CheckExact(x)) {
      const bool tuple = PyTuple_CheckExact(x);
      const Py_ssize_t n = tuple ? PyTuple_GET_SIZE(x) : PyList_GET_SIZE(x);
      tokens.push_back(tuple ? kTuple : kList);
      tokens.push_back(static_cast<std::uint64_t>(n));
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (!arg(tuple ? PyTuple_GET_ITEM(x, i) : PyList_GET_ITEM(x, i))) {
          return false;
        }
      }
    } else if (PyDict_CheckExact(x)) {
      tokens.push_back(kDict);
      tokens.push_back(static_cast<std::uint64_t>(PyDict_GET_SIZE(x)));
      Py_ssize_t pos = 0;
      PyObject *k, *v;
      while (PyDict_Next(x, &pos, &k, &v)) {
        if (!arg(k) || !arg(v)) {
          return false;
        }
      }
    } else if (PySlice_Check(x)) {
      auto* s = reinterpret_cast<PySliceObject*>(x);
      tokens.push_back(kSlice);
      return arg(s->start) && arg(s->stop) && arg(s->step);
    } else if (x == Py_Ellipsis) {
      tokens.push_back(kEllipsis);
    } else if (Py_TYPE(x) == reinterpret_cast<PyTypeObject*>(c.ref_type)) {
      PyObject* i = PyObject_GetAttr(x, c.s_i);
      if (!i) {
        return false;
      }
      tokens.push_back(kRef);
      tokens.push_back(static_cast<std::uint64_t>(PyLong_AsLongLong(i)));
      Py_DECREF(i);
    } else {
      return frozen(x);
    }
    return true;
  }

  // Anything else is compared as graph/signature.py's freeze() makes it.
  bool frozen(PyObject* x) {
    PyObject* f = PyObject_CallOneArg(config().freeze, x);
    if (!f) {
      return false;
    }
    value(f);
    Py_DECREF(f);
    return true;
  }

  PyObject* finish() {
    auto* fp = PyObject_New(FingerprintObject, &FingerprintType);
    if (!fp) {
      return nullptr;
    }
    new (&fp->tokens) Tokens(std::move(tokens));
    new (&fp->held) std::vector<PyObject*>(std::move(held));
    new (&fp->values) std::vector<PyObject*>(std::move(values));
    std::size_t h = TokensHash{}(fp->tokens);
    fp->hash = h;
    held.clear();
    values.clear();
    return reinterpret_cast<PyObject*>(fp);
  }
};

void fp_dealloc(PyObject* o) {
  auto* fp = reinterpret_cast<FingerprintObject*>(o);
  for (PyObject* x : fp->held) Py_DECREF(x);
  for (PyObject* x : fp->values) Py_DECREF(x);
  fp->tokens.~Tokens();
  fp->held.~vector();
  fp->values.~vector();
  PyObject_Free(o);
}

// -1 on a Python error.
int fp_equal(FingerprintObject* a, FingerprintObject* b) {
  if (a->hash != b->hash || a->tokens != b->tokens || a->values.size() != b->values.size()) {
    return 0;
  }
  for (std::size_t i = 0; i < a->values.size(); ++i) {
    PyObject* x = a->values[i];
    PyObject* y = b->values[i];
    if (x != y) {
      if (Py_TYPE(x) != Py_TYPE(y)) {
        return 0;
      }
      const int eq = PyObject_RichCompareBool(x, y, Py_EQ);
      if (eq != 1) {
        return eq;
      }
    }
  }
  return 1;
}

PyObject* fp_richcompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || Py_TYPE(a) != &FingerprintType ||
      Py_TYPE(b) != &FingerprintType) {
    Py_RETURN_NOTIMPLEMENTED;
  }
  const int eq = fp_equal(reinterpret_cast<FingerprintObject*>(a),
                          reinterpret_cast<FingerprintObject*>(b));
  if (eq < 0) {
    return nullptr;
  }
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

Py_hash_t fp_hash(PyObject* o) {
  auto h = static_cast<Py_hash_t>(reinterpret_cast<FingerprintObject*>(o)->hash);
  return h == -1 ? -2 : h;
}

PyObject* fp_len(PyObject* o, void*) {
  return PyLong_FromSize_t(reinterpret_cast<FingerprintObject*>(o)->tokens.size());
}

PyGetSetDef fp_getset[] = {{"n_tokens", fp_len, nullptr, nullptr, nullptr},
                           {nullptr, nullptr, nullptr, nullptr, nullptr}};

NodeObject* as_node(PyObject* o) { return reinterpret_cast<NodeObject*>(o); }

// Leaf: name, dtype, shape, strides of its value (layout is a function of them).
bool leaf_tokens(Builder& b, NodeObject* n) {
  const Config& c = config();
  b.tokens.push_back(kLeaf);
  b.value(n->label);
  b.identity(n->dtype);
  PyObject* strides = PyObject_GetAttr(n->value, c.s_strides);
  if (!strides) {
    return false;
  }
  const bool ok = b.arg(n->shape) && b.arg(strides);
  Py_DECREF(strides);
  return ok;
}

bool node_tokens(Builder& b, NodeObject* n,
                 const std::unordered_map<PyObject*, std::uint64_t>& index) {
  b.tokens.push_back(kNode);
  b.identity(n->fn);
  b.value(n->label);
  b.identity(n->dtype);
  b.tokens.push_back(static_cast<std::uint64_t>(PyTuple_GET_SIZE(n->inputs)));
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(n->inputs); ++i) {
    b.tokens.push_back(index.at(PyTuple_GET_ITEM(n->inputs, i)));
  }
  return b.arg(n->args) && b.arg(n->kwargs);
}

PyObject* to_list(const std::vector<PyObject*>& v) {
  PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.size()));
  for (std::size_t i = 0; l && i < v.size(); ++i) {
    Py_INCREF(v[i]);
    PyList_SET_ITEM(l, static_cast<Py_ssize_t>(i), v[i]);
  }
  return l;
}

} // namespace

PyTypeObject FingerprintType{};  // filled in by ready_*: C++ has no designated-initializer form for it

PyObject* collect_graph(PyObject* outputs) {
  PyObject* seq = PySequence_Fast(outputs, "outputs: a sequence of nodes");
  if (!seq) {
    return nullptr;
  }
  std::vector<PyObject*> stack, leaves, pending, outs;  // borrowed: outputs hold them
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); ++i) {
    outs.push_back(PySequence_Fast_GET_ITEM(seq, i));
  }
  bool all_nodes = true;
  std::unordered_set<PyObject*> seen;
  stack = outs;
  while (!stack.empty()) {
    PyObject* n = stack.back();
    stack.pop_back();
    if (!is_node(n)) {
      all_nodes = false;
      break;
    }
    if (!seen.insert(n).second) {
      continue;
    }
    if (as_node(n)->fn == Py_None) {
      leaves.push_back(n);
    } else {
      pending.push_back(n);
      PyObject* in = as_node(n)->inputs;
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(in); ++i) {
        stack.push_back(PyTuple_GET_ITEM(in, i));
      }
    }
  }
  if (!all_nodes) {  // not the native Node: the Python collect handles it
    Py_DECREF(seq);
    Py_RETURN_NONE;
  }
  auto by_id = [](PyObject* a, PyObject* b) { return as_node(a)->id < as_node(b)->id; };
  std::sort(leaves.begin(), leaves.end(), by_id);
  std::sort(pending.begin(), pending.end(), by_id);

  std::unordered_map<PyObject*, std::uint64_t> index;
  for (PyObject* n : leaves) index.emplace(n, index.size());
  for (PyObject* n : pending) index.emplace(n, index.size());
  Builder b;
  b.tokens.push_back(leaves.size());
  b.tokens.push_back(pending.size());
  bool ok = true;
  for (PyObject* n : leaves) ok = ok && leaf_tokens(b, as_node(n));
  for (PyObject* n : pending) ok = ok && node_tokens(b, as_node(n), index);
  for (PyObject* o : outs) b.tokens.push_back(index.at(o));
  PyObject* fp = nullptr;
  if (ok) {
    fp = b.finish();
  } else {  // an odd value or argument: no fingerprint, the slow lookup decides
    PyErr_Clear();
    Py_INCREF(Py_None);
    fp = Py_None;
  }
  PyObject* r = nullptr;
  if (fp) {
    PyObject* l = to_list(leaves);
    PyObject* p = to_list(pending);
    if (l && p) {
      r = PyTuple_Pack(3, l, p, fp);
    }
    Py_XDECREF(l);
    Py_XDECREF(p);
    Py_DECREF(fp);
  }
  Py_DECREF(seq);
  return r;
}

bool ready_fingerprint_type() {
  init_type(FingerprintType, {"npcompile._native.trace.Fingerprint", sizeof(FingerprintObject),
                              "The exact structure of a graph (see GraphFingerprint.hpp)",
                              Py_TPFLAGS_DEFAULT, fp_dealloc});
  FingerprintType.tp_richcompare = fp_richcompare;
  FingerprintType.tp_hash = fp_hash;
  FingerprintType.tp_getset = fp_getset;
  return PyType_Ready(&FingerprintType) == 0;
}

} // namespace npc::trace
