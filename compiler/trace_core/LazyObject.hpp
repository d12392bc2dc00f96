#pragma once
// The fields and the operator fast path of trace/lazy_array.py's LazyArray, as a C base
// class. Operators and __array_ufunc__ record in C++ (OpRecorder) and fall back to the
// Python rules for anything they do not know.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

struct LazyObject {
  PyObject_HEAD
  PyObject* st;      // its Storage
  PyObject* chain;   // tuple of view steps from the storage's base
  PyObject* node;    // cached node of the current value, or None
  long long ver;     // storage version the cached node belongs to
  PyObject* scalar;  // a NumPy scalar (0-d result of scalars), not an array
  PyObject* fake;
  PyObject* weaklist;
};

extern PyTypeObject LazyBaseType;

// A lazy array of `type` over a fresh storage whose base is `node` (both borrowed).
// A LazyArray standing for a Python number (its `_scalar` neither True nor False).
bool is_python_number(PyObject* o);

PyObject* new_lazy(PyTypeObject* type, PyObject* storage, PyObject* node, bool scalar);

bool ready_lazy_type();

} // namespace npc::trace
