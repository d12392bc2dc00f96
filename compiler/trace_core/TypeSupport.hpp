#pragma once
// What every C type of the trace core does the same way: its static PyTypeObject's
// common fields, and a deallocation that clears weak references and owned fields.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

struct TypeSpec {
  const char* name;
  Py_ssize_t size;
  const char* doc;
  unsigned long flags = Py_TPFLAGS_DEFAULT;
  destructor dealloc = nullptr;
  Py_ssize_t weaklist_offset = 0;
};

// Fills the common fields of a zero-initialized static type; the caller adds its own
// slots and then calls PyType_Ready.
inline void init_type(PyTypeObject& t, const TypeSpec& s) {
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&t), 1);  // static: never freed
  t.tp_name = s.name;
  t.tp_basicsize = s.size;
  t.tp_doc = s.doc;
  t.tp_flags = s.flags;
  t.tp_dealloc = s.dealloc;
  t.tp_weaklistoffset = s.weaklist_offset;
}

inline void clear_field(PyObject*& field) { Py_CLEAR(field); }

// The end of a tp_dealloc: weak references first (they may call back), then fields.
template <class... Fields>
void release(PyObject* self, PyObject* weaklist, Fields&... fields) {
  if (weaklist) {
    PyObject_ClearWeakRefs(self);
  }
  (clear_field(fields), ...);
  Py_TYPE(self)->tp_free(self);
}

} // namespace npc::trace
