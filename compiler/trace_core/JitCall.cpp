// See JitCall.hpp.
#include "JitCall.hpp"

#include "ArgKey.hpp"
#include "TraceState.hpp"
#include "TypeSupport.hpp"

namespace npc::trace {

PyTypeObject JitCallType{};  // filled in by ready_jit_call_type

namespace {

// Keys granted at once; past this the grants are dropped and earned again (a function
// called on ever-new shapes would otherwise keep a grant per shape).
constexpr Py_ssize_t kMaxGrants = 64;

// Bumped by expire_grants(): a function's grants are from one epoch.
unsigned long long g_epoch = 0;

struct JitCallObject {
  PyObject_HEAD
  PyObject* grants;    // argument key -> calls left (an int; -1: for good), or null
  PyObject* eager;     // the NumPy path: called with the call's own arguments
  PyObject* handling;  // () -> NumPy's floating-point handling now (api/fp_errors.py)
  PyObject* quiet;     // the set of handlings known free of raising modes
  unsigned long long epoch;
};

JitCallObject* as_jit(PyObject* o) { return reinterpret_cast<JitCallObject*>(o); }

PyObject* s_call = nullptr;  // "_call", interned

int jit_traverse(PyObject* self, visitproc visit, void* arg) {
  JitCallObject* s = as_jit(self);
  Py_VISIT(s->grants);
  Py_VISIT(s->eager);
  Py_VISIT(s->handling);
  Py_VISIT(s->quiet);
  return 0;
}

int jit_clear(PyObject* self) {
  JitCallObject* s = as_jit(self);
  Py_CLEAR(s->grants);
  Py_CLEAR(s->eager);
  Py_CLEAR(s->handling);
  Py_CLEAR(s->quiet);
  return 0;
}

void jit_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  jit_clear(self);
  Py_TYPE(self)->tp_free(self);
}

// The NumPy path's result for a granted call, or null with no error set where the call
// is not granted (an error set is the call's error).
PyObject* granted_call(JitCallObject* s, PyObject* args, PyObject* kwargs) {
  if (!s->eager || !s->grants || s->epoch != g_epoch || PyDict_GET_SIZE(s->grants) == 0 ||
      (kwargs && PyDict_GET_SIZE(kwargs) != 0) || current_tracer() != nullptr) {
    return nullptr;
  }
  PyObject* h = PyObject_CallNoArgs(s->handling);
  if (!h) {
    return nullptr;
  }
  const int quiet = PySet_Contains(s->quiet, h);
  Py_DECREF(h);
  if (quiet != 1) {
    PyErr_Clear();  // (an unhashable handling: not known quiet) the Python path decides
    return nullptr;
  }
  PyObject* key = arg_key(args);
  if (!key) {
    PyErr_Clear();  // the Python path computes the key again, and raises where it must
    return nullptr;
  }
  PyObject* left = key == Py_None ? nullptr : PyDict_GetItemWithError(s->grants, key);
  Py_ssize_t n = left ? PyLong_AsSsize_t(left) : 0;
  if (n > 0) {  // one call of the grant taken (the path choice counts those taken later)
    PyObject* rest = n > 1 ? PyLong_FromSsize_t(n - 1) : nullptr;
    const int done = rest ? PyDict_SetItem(s->grants, key, rest) : PyDict_DelItem(s->grants, key);
    Py_XDECREF(rest);
    if (done != 0) {
      Py_DECREF(key);
      return nullptr;
    }
  }
  Py_DECREF(key);
  if (n == 0 || PyErr_Occurred()) {
    PyErr_Clear();
    return nullptr;
  }
  return PyObject_Call(s->eager, args, kwargs);
}

PyObject* jit_call(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* r = granted_call(as_jit(self), args, kwargs);
  if (r || PyErr_Occurred()) {
    return r;
  }
  PyObject* slow = PyObject_GetAttr(self, s_call);
  if (!slow) {
    return nullptr;
  }
  r = PyObject_Call(slow, args, kwargs);
  Py_DECREF(slow);
  return r;
}

// _numpy_path(eager, handling, quiet): what granted calls run and check; eager None
// turns granting off.
PyObject* set_numpy_path(PyObject* self, PyObject* args) {
  PyObject *eager, *handling, *quiet;
  if (!PyArg_ParseTuple(args, "OOO!:_numpy_path", &eager, &handling, &PySet_Type, &quiet)) {
    return nullptr;
  }
  JitCallObject* s = as_jit(self);
  jit_clear(self);
  if (eager != Py_None) {
    s->grants = PyDict_New();
    if (!s->grants) {
      return nullptr;
    }
    Py_INCREF(eager);
    Py_INCREF(handling);
    Py_INCREF(quiet);
    s->eager = eager;
    s->handling = handling;
    s->quiet = quiet;
    s->epoch = g_epoch;
  }
  Py_RETURN_NONE;
}

// _grant_numpy(key, n): the next n calls with this argument key run the NumPy path (-1: every
// call, for good; 0: none, the grant revoked), until npcompile.reset().
PyObject* grant(PyObject* self, PyObject* args) {
  PyObject* key;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "On:_grant_numpy", &key, &n)) {
    return nullptr;
  }
  JitCallObject* s = as_jit(self);
  if (!s->grants) {
    Py_RETURN_NONE;
  }
  if (s->epoch != g_epoch || PyDict_GET_SIZE(s->grants) >= kMaxGrants) {
    PyDict_Clear(s->grants);
    s->epoch = g_epoch;
  }
  if (n == 0) {  // revoked
    if (PyDict_DelItem(s->grants, key) != 0) {
      if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
        return nullptr;
      }
      PyErr_Clear();
    }
    Py_RETURN_NONE;
  }
  PyObject* v = PyLong_FromSsize_t(n);
  const int done = v ? PyDict_SetItem(s->grants, key, v) : -1;
  Py_XDECREF(v);
  if (done != 0) {
    return nullptr;
  }
  Py_RETURN_NONE;
}

// _granted(key): the calls left to a grant (-1: for good), or None.
PyObject* granted(PyObject* self, PyObject* key) {
  JitCallObject* s = as_jit(self);
  PyObject* v = s->grants && s->epoch == g_epoch ? PyDict_GetItemWithError(s->grants, key)
                                                  : nullptr;
  if (!v && PyErr_Occurred()) {
    return nullptr;
  }
  v = v ? v : Py_None;
  Py_INCREF(v);
  return v;
}

PyMethodDef jit_methods[] = {
    {"_numpy_path", set_numpy_path, METH_VARARGS,
     "(eager, handling, quiet): what granted calls run, and the floating-point check"},
    {"_grant_numpy", grant, METH_VARARGS, "(key, n): the next n calls with this key run NumPy"},
    {"_granted", granted, METH_O, "the calls left to this key's grant, or None"},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

void expire_grants() { ++g_epoch; }

bool ready_jit_call_type() {
  s_call = PyUnicode_InternFromString("_call");
  if (!s_call) {
    return false;
  }
  init_type(JitCallType, {"npcompile._native.trace.JitCall", sizeof(JitCallObject),
                          "A jitted call up to its path choice (see api/jit.Jitted)",
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
                          jit_dealloc});
  JitCallType.tp_new = PyType_GenericNew;
  JitCallType.tp_call = jit_call;
  JitCallType.tp_traverse = jit_traverse;
  JitCallType.tp_clear = jit_clear;
  JitCallType.tp_methods = jit_methods;
  return PyType_Ready(&JitCallType) == 0;
}

} // namespace npc::trace
