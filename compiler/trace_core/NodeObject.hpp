#pragma once
// The graph node as a C type: the same fields as graph/node.py's Node (which remains the
// definition where _native is missing), but made and read without Python-level work.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

struct NodeObject {
  PyObject_HEAD
  long long id;
  PyObject* fn;      // the NumPy callable; None marks a leaf
  PyObject* args;    // argument template, Ref(i) standing for inputs[i]
  PyObject* kwargs;  // dict or None
  PyObject* inputs;  // tuple of nodes
  PyObject* dtype;
  PyObject* shape;   // tuple of ints
  PyObject* value;   // the concrete value of a leaf
  PyObject* label;
  PyObject* site;    // (filename, lineno) of the user's line, or None
  PyObject* weaklist;
};

extern PyTypeObject NodeType;

inline bool is_node(PyObject* o) { return Py_TYPE(o) == &NodeType; }

// A new node; every argument is borrowed (None where absent).
PyObject* new_node(PyObject* fn, PyObject* args, PyObject* kwargs, PyObject* inputs,
                   PyObject* dtype, PyObject* shape, PyObject* label, PyObject* site,
                   PyObject* value);

// PyType_Ready; false with a Python error set on failure.
bool ready_node_type();

} // namespace npc::trace
