#include "StorageObject.hpp"

#include "TypeSupport.hpp"

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
  release(o, s->weaklist, s->base, s->target, s->name, s->aliased, s->guessed, s->fake,
          s->fake_is_real);
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
  init_type(StorageBaseType, {"npcompile._native.trace.StorageBase", sizeof(StorageObject),
                              "Fields of trace.storage.Storage",
                              Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, storage_dealloc,
                              offsetof(StorageObject, weaklist)});
  StorageBaseType.tp_new = storage_new;
  StorageBaseType.tp_members = storage_members;
  return PyType_Ready(&StorageBaseType) == 0;
}

} // namespace npc::trace
