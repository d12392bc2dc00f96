#pragma once
// The fields of trace/storage.py's Storage as a C base class: the Python subclass keeps
// the methods; the op recorder makes storages and reads `version` without Python calls.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

struct StorageObject {
  PyObject_HEAD
  PyObject* base;     // newest version of the whole array (a node)
  PyObject* target;   // the user's ndarray that receives the final value, or None
  PyObject* name;
  long long version;  // bumped by every in-place write
  PyObject* aliased;
  PyObject* guessed;
  PyObject* fake;
  PyObject* fake_is_real;
  PyObject* weaklist;
};

extern PyTypeObject StorageBaseType;

// A fresh storage of type `type` (the Python subclass) whose base is `node` (borrowed).
PyObject* new_storage(PyTypeObject* type, PyObject* node);

bool ready_storage_type();

} // namespace npc::trace
