#include "NodeObject.hpp"

#include "TypeSupport.hpp"

#include <structmember.h>

namespace npc::trace {
namespace {

long long next_id = 1;  // creation order: collect() sorts by it (GIL held throughout)

void set(PyObject*& field, PyObject* v) {
  Py_INCREF(v);
  field = v;
}

PyObject* node_new(PyTypeObject*, PyObject* args, PyObject* kw) {
  static const char* names[] = {"fn", "args", "kwargs", "inputs", "dtype", "shape",
                                "label", "site", "value", nullptr};
  PyObject *fn, *a, *k, *in, *dt, *sh, *lab, *site = Py_None, *value = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOO|OO", const_cast<char**>(names), &fn, &a,
                                   &k, &in, &dt, &sh, &lab, &site, &value)) {
    return nullptr;
  }
  return new_node(fn, a, k, in, dt, sh, lab, site, value);
}

void node_dealloc(PyObject* o) {
  auto* n = reinterpret_cast<NodeObject*>(o);
  release(o, n->weaklist, n->fn, n->args, n->kwargs, n->inputs, n->dtype, n->shape, n->value,
          n->label, n->site);
}

PyObject* node_is_leaf(PyObject* o, void*) {
  return PyBool_FromLong(reinterpret_cast<NodeObject*>(o)->fn == Py_None);
}

PyObject* node_leaf(PyObject*, PyObject* args, PyObject* kw) {
  static const char* names[] = {"value", "label", nullptr};
  PyObject* value;
  PyObject* label = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", const_cast<char**>(names), &value, &label)) {
    return nullptr;
  }
  PyObject* dtype = PyObject_GetAttrString(value, "dtype");
  PyObject* shape = dtype ? PyObject_GetAttrString(value, "shape") : nullptr;
  PyObject* lab = label ? (Py_INCREF(label), label) : PyUnicode_FromString("input");
  PyObject* r = nullptr;
  if (shape && lab) {
    PyObject* empty = PyTuple_New(0);
    r = new_node(Py_None, empty, Py_None, empty, dtype, shape, lab, Py_None, value);
    Py_DECREF(empty);
  }
  Py_XDECREF(dtype);
  Py_XDECREF(shape);
  Py_XDECREF(lab);
  return r;
}

// After execution a node becomes a leaf holding its value; its history is dropped.
PyObject* node_make_concrete(PyObject* o, PyObject* value) {
  auto* n = reinterpret_cast<NodeObject*>(o);
  PyObject* empty = PyTuple_New(0);
  Py_INCREF(value);
  Py_INCREF(Py_None);
  Py_INCREF(Py_None);
  Py_INCREF(empty);
  Py_SETREF(n->fn, Py_None);
  Py_SETREF(n->args, empty);
  Py_SETREF(n->kwargs, Py_None);
  Py_SETREF(n->inputs, empty);
  Py_SETREF(n->value, value);
  Py_RETURN_NONE;
}

PyObject* node_repr(PyObject* o) {
  auto* n = reinterpret_cast<NodeObject*>(o);
  return PyUnicode_FromFormat("Node(%lld, %S, %S, %S)", n->id, n->label, n->dtype, n->shape);
}

PyMemberDef node_members[] = {
    {"id", T_LONGLONG, offsetof(NodeObject, id), READONLY, nullptr},
    {"fn", T_OBJECT, offsetof(NodeObject, fn), 0, nullptr},
    {"args", T_OBJECT, offsetof(NodeObject, args), 0, nullptr},
    {"kwargs", T_OBJECT, offsetof(NodeObject, kwargs), 0, nullptr},
    {"inputs", T_OBJECT, offsetof(NodeObject, inputs), 0, nullptr},
    {"dtype", T_OBJECT, offsetof(NodeObject, dtype), 0, nullptr},
    {"shape", T_OBJECT, offsetof(NodeObject, shape), 0, nullptr},
    {"value", T_OBJECT, offsetof(NodeObject, value), 0, nullptr},
    {"label", T_OBJECT, offsetof(NodeObject, label), 0, nullptr},
    {"site", T_OBJECT, offsetof(NodeObject, site), 0, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyGetSetDef node_getset[] = {{"is_leaf", node_is_leaf, nullptr, nullptr, nullptr},
                             {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef node_methods[] = {
    {"leaf", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(node_leaf)),
     METH_VARARGS | METH_KEYWORDS | METH_STATIC, "Node.leaf(value, label='input')"},
    {"make_concrete", node_make_concrete, METH_O, "the node becomes a leaf holding value"},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyTypeObject NodeType{};  // filled in by ready_*: C++ has no designated-initializer form for it

PyObject* new_node(PyObject* fn, PyObject* args, PyObject* kwargs, PyObject* inputs,
                   PyObject* dtype, PyObject* shape, PyObject* label, PyObject* site,
                   PyObject* value) {
  auto* n = PyObject_New(NodeObject, &NodeType);
  if (!n) {
    return nullptr;
  }
  n->id = next_id++;
  set(n->fn, fn);
  set(n->args, args);
  set(n->kwargs, kwargs);
  set(n->inputs, inputs);
  set(n->dtype, dtype);
  set(n->shape, shape);
  set(n->label, label);
  set(n->site, site);
  set(n->value, value);
  n->weaklist = nullptr;
  return reinterpret_cast<PyObject*>(n);
}

bool ready_node_type() {
  init_type(NodeType, {"npcompile._native.trace.Node", sizeof(NodeObject),
                       "A value in the graph: a recorded NumPy call whose array arguments "
                       "are nodes",
                       Py_TPFLAGS_DEFAULT, node_dealloc, offsetof(NodeObject, weaklist)});
  NodeType.tp_new = node_new;
  NodeType.tp_repr = node_repr;
  NodeType.tp_members = node_members;
  NodeType.tp_getset = node_getset;
  NodeType.tp_methods = node_methods;
  return PyType_Ready(&NodeType) == 0;
}

} // namespace npc::trace
