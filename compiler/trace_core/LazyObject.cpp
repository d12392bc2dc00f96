#include "LazyObject.hpp"

#include "OpRecorder.hpp"
#include "TraceState.hpp"

#include <structmember.h>

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
  if (l->weaklist) {
    PyObject_ClearWeakRefs(o);
  }
  Py_CLEAR(l->st);
  Py_CLEAR(l->chain);
  Py_CLEAR(l->node);
  Py_CLEAR(l->scalar);
  Py_CLEAR(l->fake);
  Py_TYPE(o)->tp_free(o);
}

template <Op op>
PyObject* binary(PyObject* a, PyObject* b) {
  PyObject* in[2] = {a, b};
  return call_ufunc(config().ufuncs[op], in, 2);
}

template <Op op>
PyObject* unary(PyObject* a) {
  return call_ufunc(config().ufuncs[op], &a, 1);
}

PyObject* richcompare(PyObject* a, PyObject* b, int cmp) {
  static constexpr Op ops[] = {kLt, kLe, kEq, kNe, kGt, kGe};  // Py_LT .. Py_GE
  PyObject* in[2] = {a, b};
  return call_ufunc(config().ufuncs[ops[cmp]], in, 2);
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

PyTypeObject LazyBaseType{};  // filled in by ready_*: C++ has no designated-initializer form for it

PyObject* new_lazy(PyTypeObject* type, PyObject* storage, PyObject* node, bool scalar) {
  PyObject* o = type->tp_alloc(type, 0);
  if (o) {
    init_fields(reinterpret_cast<LazyObject*>(o), storage, node, scalar);
  }
  return o;
}

bool ready_lazy_type() {
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&LazyBaseType), 1);  // static: never freed
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
  LazyBaseType.tp_name = "npcompile._native.trace.LazyBase";
  LazyBaseType.tp_basicsize = sizeof(LazyObject);
  LazyBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  LazyBaseType.tp_doc = "Fields and operators of trace.lazy_array.LazyArray";
  LazyBaseType.tp_new = lazy_tp_new;
  LazyBaseType.tp_dealloc = lazy_dealloc;
  LazyBaseType.tp_members = lazy_members;
  LazyBaseType.tp_methods = lazy_methods;
  LazyBaseType.tp_as_number = &lazy_number;
  LazyBaseType.tp_richcompare = richcompare;
  LazyBaseType.tp_hash = PyObject_HashNotImplemented;
  LazyBaseType.tp_weaklistoffset = offsetof(LazyObject, weaklist);
  return PyType_Ready(&LazyBaseType) == 0;
}

} // namespace npc::trace
