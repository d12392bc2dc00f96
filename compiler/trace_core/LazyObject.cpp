#include "LazyObject.hpp"

#include "OpRecorder.hpp"
#include "TraceState.hpp"

#include "TypeSupport.hpp"

#include <structmember.h>

#include <array>

namespace npc::trace {
namespace {

void init_fields(LazyObject* l, PyObject* st, PyObject* node, bool scalar) {
  Py_INCREF(st);
  l->st = st;
  l->chain = PyTuple_New(0);  // the shared empty tuple
  Py_INCREF(node);
  l->node = node;
  l->ver = 0;
  l->scalar = scalar ? Py_True : Py_False;
  Py_INCREF(l->scalar);
  Py_INCREF(Py_None);
  l->fake = Py_None;
  l->weaklist = nullptr;
}

PyObject* lazy_tp_new(PyTypeObject* type, PyObject*, PyObject*) {
  return new_lazy(type, Py_None, Py_None, false);
}

void lazy_dealloc(PyObject* o) {
  auto* l = reinterpret_cast<LazyObject*>(o);
  release(o, l->weaklist, l->st, l->chain, l->node, l->scalar, l->fake);
}

// An operator with a lazy Python number among its operands follows Python's rules
// (trace/python_numbers.py), not NumPy's: `hits * 4` of a Python int stays one.
PyObject* operator_call(PyObject* ufunc, PyObject* const* in, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (is_python_number(in[i])) {
      std::array<PyObject*, 3> args{ufunc, in[0], n > 1 ? in[1] : nullptr};
      return PyObject_Vectorcall(config().py_operator, args.data(), 1 + n, nullptr);
    }
  }
  return call_ufunc(ufunc, in, n);
}

template <Op op>
PyObject* binary(PyObject* a, PyObject* b) {
  PyObject* in[2] = {a, b};
  return operator_call(config().ufuncs[op], in, 2);
}

template <Op op>
PyObject* unary(PyObject* a) {
  return operator_call(config().ufuncs[op], &a, 1);
}

PyObject* richcompare(PyObject* a, PyObject* b, int cmp) {
  static constexpr Op ops[] = {kLt, kLe, kEq, kNe, kGt, kGe};  // Py_LT .. Py_GE
  PyObject* in[2] = {a, b};
  return operator_call(config().ufuncs[ops[cmp]], in, 2);
}

PyNumberMethods lazy_number = {};

PyMemberDef lazy_members[] = {
    {"_st", T_OBJECT, offsetof(LazyObject, st), 0, nullptr},
    {"_chain", T_OBJECT, offsetof(LazyObject, chain), 0, nullptr},
    {"_node", T_OBJECT, offsetof(LazyObject, node), 0, nullptr},
    {"_ver", T_LONGLONG, offsetof(LazyObject, ver), 0, nullptr},
    {"_scalar", T_OBJECT, offsetof(LazyObject, scalar), 0, nullptr},
    {"_fake", T_OBJECT, offsetof(LazyObject, fake), 0, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyMethodDef lazy_methods[] = {
    {"__array_ufunc__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(array_ufunc)),
     METH_FASTCALL | METH_KEYWORDS, "NumPy's ufunc protocol: record the call"},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

bool is_python_number(PyObject* o) {
  if (!PyObject_TypeCheck(o, &LazyBaseType)) {
    return false;
  }
  PyObject* s = reinterpret_cast<LazyObject*>(o)->scalar;
  return s != Py_True && s != Py_False && s != nullptr;
}

PyTypeObject LazyBaseType{};  // filled in by ready_*: C++ has no designated-initializer form for it

PyObject* new_lazy(PyTypeObject* type, PyObject* storage, PyObject* node, bool scalar) {
  PyObject* o = type->tp_alloc(type, 0);
  if (o) {
    init_fields(reinterpret_cast<LazyObject*>(o), storage, node, scalar);
  }
  return o;
}

bool ready_lazy_type() {
  init_type(LazyBaseType, {"npcompile._native.trace.LazyBase", sizeof(LazyObject),
                           "Fields and operators of trace.lazy_array.LazyArray",
                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, lazy_dealloc,
                           offsetof(LazyObject, weaklist)});
  PyNumberMethods& n = lazy_number;
  n.nb_add = binary<kAdd>;
  n.nb_subtract = binary<kSub>;
  n.nb_multiply = binary<kMul>;
  n.nb_true_divide = binary<kTrueDiv>;
  n.nb_floor_divide = binary<kFloorDiv>;
  n.nb_remainder = binary<kMod>;
  n.nb_and = binary<kAnd>;
  n.nb_or = binary<kOr>;
  n.nb_xor = binary<kXor>;
  n.nb_lshift = binary<kLShift>;
  n.nb_rshift = binary<kRShift>;
  n.nb_negative = unary<kNeg>;
  n.nb_positive = unary<kPos>;
  n.nb_absolute = unary<kAbs>;
  n.nb_invert = unary<kInvert>;
  LazyBaseType.tp_new = lazy_tp_new;
  LazyBaseType.tp_members = lazy_members;
  LazyBaseType.tp_methods = lazy_methods;
  LazyBaseType.tp_as_number = &lazy_number;
  LazyBaseType.tp_richcompare = richcompare;
  LazyBaseType.tp_hash = PyObject_HashNotImplemented;
  return PyType_Ready(&LazyBaseType) == 0;
}

} // namespace npc::trace
