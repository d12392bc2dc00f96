#include "StorageObject.hpp"

#include <structmember.h>

#include <initializer_list>

namespace npc::trace {
namespace {

void init_fields(StorageObject* s, PyObject* base) {
  Py_INCREF(base);
  s->base = base;
  for (PyObject** f : {&s->target, &s->name, &s->fake}) {
    Py_INCREF(Py_None);
    *f = Py_None;
  }
  for (PyObject** f : {&s->aliased, &s->guessed, &s->fake_is_real}) {
    Py_INCREF(Py_False);
    *f = Py_False;
  }
  s->version = 0;
  s->weaklist = nullptr;
}

PyObject* storage_new(PyTypeObject* type, PyObject*, PyObject*) {
  return new_storage(type, Py_None);
}

void storage_dealloc(PyObject* o) {
  auto* s = reinterpret_cast<StorageObject*>(o);
  if (s->weaklist) {
    PyObject_ClearWeakRefs(o);
  }
  Py_CLEAR(s->base);
  Py_CLEAR(s->target);
  Py_CLEAR(s->name);
  Py_CLEAR(s->aliased);
  Py_CLEAR(s->guessed);
  Py_CLEAR(s->fake);
  Py_CLEAR(s->fake_is_real);
  Py_TYPE(o)->tp_free(o);
}

PyMemberDef storage_members[] = {
    {"base", T_OBJECT, offsetof(StorageObject, base), 0, nullptr},
    {"target", T_OBJECT, offsetof(StorageObject, target), 0, nullptr},
    {"name", T_OBJECT, offsetof(StorageObject, name), 0, nullptr},
    {"version", T_LONGLONG, offsetof(StorageObject, version), 0, nullptr},
    {"aliased", T_OBJECT, offsetof(StorageObject, aliased), 0, nullptr},
    {"guessed", T_OBJECT, offsetof(StorageObject, guessed), 0, nullptr},
    {"fake", T_OBJECT, offsetof(StorageObject, fake), 0, nullptr},
    {"fake_is_real", T_OBJECT, offsetof(StorageObject, fake_is_real), 0, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

} // namespace

PyTypeObject StorageBaseType{};  // filled in by ready_*: C++ has no designated-initializer form for it

PyObject* new_storage(PyTypeObject* type, PyObject* node) {
  PyObject* o = type->tp_alloc(type, 0);
  if (o) {
    init_fields(reinterpret_cast<StorageObject*>(o), node);
  }
  return o;
}

bool ready_storage_type() {
  Py_SET_REFCNT(reinterpret_cast<PyObject*>(&StorageBaseType), 1);  // static: never freed
  StorageBaseType.tp_name = "npcompile._native.trace.StorageBase";
  StorageBaseType.tp_basicsize = sizeof(StorageObject);
  StorageBaseType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  StorageBaseType.tp_doc = "Fields of trace.storage.Storage";
  StorageBaseType.tp_new = storage_new;
  StorageBaseType.tp_dealloc = storage_dealloc;
  StorageBaseType.tp_members = storage_members;
  StorageBaseType.tp_weaklistoffset = offsetof(StorageObject, weaklist);
  return PyType_Ready(&StorageBaseType) == 0;
}

} // namespace npc::trace
