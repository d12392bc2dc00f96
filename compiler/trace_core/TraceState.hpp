#pragma once
// What the C++ tracer needs from the Python package (its classes, the slow paths, the
// operator ufuncs), given once by trace/native.py, and the thread's current tracer.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

// Operators of LazyArray recorded in C++, in the order of kOpNames.
enum Op : int {
  kAdd, kSub, kMul, kTrueDiv, kFloorDiv, kMod, kAnd, kOr, kXor, kLShift, kRShift,
  kLt, kLe, kEq, kNe, kGt, kGe, kNeg, kPos, kAbs, kInvert, kOpCount
};
extern const char* const kOpNames[kOpCount];

struct Config {
  bool ready = false;
  PyTypeObject* lazy_type = nullptr;     // trace.lazy_array.LazyArray
  PyTypeObject* storage_type = nullptr;  // trace.storage.Storage
  PyObject* slow_ufunc = nullptr;        // the Python __array_ufunc__ (every rule)
  PyObject* py_operator = nullptr;       // an operator on a lazy Python number
                                         // (trace/python_numbers.py): Python's rules
  PyObject* ref_type = nullptr;          // graph.node.Ref
  PyObject* refs[2] = {nullptr, nullptr};  // Ref(0), Ref(1)
  PyObject* internal = nullptr;          // filename prefixes of npcompile and NumPy
  PyObject* freeze = nullptr;            // graph.signature.freeze
  PyObject* ufuncs[kOpCount] = {};
  // interned names
  PyObject* s_ops = nullptr;
  PyObject* s_lazies = nullptr;
  PyObject* s_call = nullptr;
  PyObject* s_i = nullptr;
  PyObject* s_strides = nullptr;
  PyObject* s_signature = nullptr;
  PyObject* s_nout = nullptr;
  PyObject* s_over_budget = nullptr;
  PyObject* empty_tuple = nullptr;
  // Past this many ops in one trace the recorder asks the tracer (over_budget) whether
  // tracing goes on: trace/budget.py's limit, set through set_op_budget.
  Py_ssize_t op_budget = PY_SSIZE_T_MAX;
};

Config& config();

// configure(dict): see trace/native.py. False with a Python error on failure.
bool configure(PyObject* options);
// New reference to options[key], kept for the process's life; KeyError "<who> configure:
// missing <key>" where it is absent.
PyObject* take_option(PyObject* options, const char* key, const char* who);

// The tracer active on this thread (borrowed), or nullptr.
PyObject* current_tracer();
void set_current_tracer(PyObject* tracer);  // None or nullptr: no tracer

} // namespace npc::trace
