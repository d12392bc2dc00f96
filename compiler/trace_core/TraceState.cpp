#include "TraceState.hpp"

namespace npc::trace {
namespace {

thread_local PyObject* current = nullptr;  // strong reference

PyObject* take(PyObject* options, const char* key) { return take_option(options, key, "trace"); }

} // namespace

PyObject* take_option(PyObject* options, const char* key, const char* who) {
  PyObject* v = PyDict_GetItemString(options, key);  // borrowed
  if (!v) {
    PyErr_Format(PyExc_KeyError, "%s configure: missing %s", who, key);
    return nullptr;
  }
  Py_INCREF(v);  // configuration lives as long as the process
  return v;
}

const char* const kOpNames[kOpCount] = {
    "add",  "subtract", "multiply", "divide", "floor_divide", "remainder", "bitwise_and",
    "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "less", "less_equal", "equal",
    "not_equal", "greater", "greater_equal", "negative", "positive", "absolute", "invert"};

Config& config() {
  static Config c;
  return c;
}

bool configure(PyObject* options) {
  if (!PyDict_Check(options)) {
    PyErr_SetString(PyExc_TypeError, "trace configure: a dict");
    return false;
  }
  Config& c = config();
  PyObject* lazy = take(options, "lazy_type");
  PyObject* storage = take(options, "storage_type");
  c.slow_ufunc = take(options, "slow_ufunc");
  c.py_operator = take(options, "py_operator");
  c.ref_type = take(options, "ref_type");
  c.internal = take(options, "internal");
  c.freeze = take(options, "freeze");
  PyObject* ufuncs = take(options, "ufuncs");  // the numpy module
  if (!lazy || !storage || !c.slow_ufunc || !c.py_operator || !c.ref_type || !c.internal || !c.freeze || !ufuncs) {
    return false;
  }
  if (!PyType_Check(lazy) || !PyType_Check(storage)) {
    PyErr_SetString(PyExc_TypeError, "trace configure: lazy_type and storage_type are classes");
    return false;
  }
  c.lazy_type = reinterpret_cast<PyTypeObject*>(lazy);
  c.storage_type = reinterpret_cast<PyTypeObject*>(storage);
  for (int i = 0; i < kOpCount; ++i) {
    c.ufuncs[i] = PyObject_GetAttrString(ufuncs, kOpNames[i]);
    if (!c.ufuncs[i]) {
      return false;
    }
  }
  for (int i = 0; i < 2; ++i) {
    c.refs[i] = PyObject_CallFunction(c.ref_type, "i", i);
    if (!c.refs[i]) {
      return false;
    }
  }
  c.s_ops = PyUnicode_InternFromString("ops");
  c.s_lazies = PyUnicode_InternFromString("lazies");
  c.s_call = PyUnicode_InternFromString("__call__");
  c.s_i = PyUnicode_InternFromString("i");
  c.s_strides = PyUnicode_InternFromString("strides");
  c.s_signature = PyUnicode_InternFromString("signature");
  c.s_nout = PyUnicode_InternFromString("nout");
  c.s_over_budget = PyUnicode_InternFromString("over_budget");
  c.empty_tuple = PyTuple_New(0);
  c.ready = true;
  return true;
}

PyObject* current_tracer() { return current; }

void set_current_tracer(PyObject* tracer) {
  if (tracer == Py_None) {
    tracer = nullptr;
  }
  Py_XINCREF(tracer);
  PyObject* old = current;
  current = tracer;
  Py_XDECREF(old);
}

} // namespace npc::trace
