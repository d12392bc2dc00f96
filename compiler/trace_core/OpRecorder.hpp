#pragma once
// Recording a ufunc call on lazy arrays in C++: operands are classified, the result
// dtype comes from a cache keyed on (ufunc, operand dtypes and scalar values), the shape
// from broadcasting, and the node, storage and lazy array are made directly.
//
// The Python rules (trace/ufunc_rules.py) stay the definition: on a cache miss the call
// goes through them, and the cache learns from what they recorded, only when they
// recorded exactly the plain node this fast path would make.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

// ufunc(*inputs) with at least one LazyArray among inputs: recorded, or via Python.
PyObject* call_ufunc(PyObject* ufunc, PyObject* const* inputs, Py_ssize_t n);

// LazyBase.__array_ufunc__(self, ufunc, method, *inputs, **kwargs) (vectorcall form).
PyObject* array_ufunc(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

// Entries in the dtype cache (tests and the benchmark).
Py_ssize_t learned_count();
void forget_learned();

} // namespace npc::trace
