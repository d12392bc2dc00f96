#include "UserSite.hpp"

#include "TraceState.hpp"

#include <unordered_map>

namespace npc::trace {
namespace {

struct CodeInfo {
  bool internal;
  PyObject* filename;
  PyObject* ref;  // a weak reference to the code object, whose callback drops the entry
};

// Keyed by code object. The map holds each one weakly: an entry leaves when its code
// object is freed, before its address can be reused. (It held them strongly, so that
// every function a notebook ever traced kept its code, constants and names alive, and
// pinned the interpreter's memory arenas, after the function and reset() were gone.)
std::unordered_map<PyObject*, CodeInfo>& code_cache() {
  static std::unordered_map<PyObject*, CodeInfo> cache;
  return cache;
}

PyObject* forget_code(PyObject* self, PyObject* /*ref*/) {
  auto& cache = code_cache();
  auto it = cache.find(static_cast<PyObject*>(PyLong_AsVoidPtr(self)));
  if (it != cache.end()) {
    PyObject* filename = it->second.filename;
    PyObject* ref = it->second.ref;
    cache.erase(it);
    Py_DECREF(filename);
    Py_XDECREF(ref);
  }
  Py_RETURN_NONE;
}

PyMethodDef forget_code_def = {"forget_code", forget_code, METH_O, nullptr};

// A weak reference to code whose callback erases its entry; null (and a strong reference
// kept instead) for an object that takes no weak references.
PyObject* watch(PyObject* key) {
  PyObject* self = PyLong_FromVoidPtr(key);
  PyObject* callback = self ? PyCFunction_New(&forget_code_def, self) : nullptr;
  Py_XDECREF(self);
  PyObject* ref = callback ? PyWeakref_NewRef(key, callback) : nullptr;
  Py_XDECREF(callback);
  if (!ref) {
    PyErr_Clear();
    Py_INCREF(key);
  }
  return ref;
}

const CodeInfo* info_of(PyCodeObject* code) {
  auto& cache = code_cache();
  auto key = reinterpret_cast<PyObject*>(code);
  auto it = cache.find(key);
  if (it != cache.end()) {
    return &it->second;
  }
  PyObject* filename = PyObject_GetAttrString(key, "co_filename");
  if (!filename) {
    return nullptr;
  }
  PyObject* r = PyObject_CallMethod(filename, "startswith", "(O)", config().internal);
  if (!r) {
    Py_DECREF(filename);
    return nullptr;
  }
  const bool internal = r == Py_True;
  Py_DECREF(r);
  return &cache.emplace(key, CodeInfo{internal, filename, watch(key)}).first->second;
}

} // namespace

PyObject* user_site() {
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  Py_XINCREF(f);
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    const CodeInfo* info = info_of(code);
    Py_DECREF(code);
    if (!info) {
      Py_DECREF(f);
      return nullptr;
    }
    if (!info->internal) {
      PyObject* r = Py_BuildValue("(Oi)", info->filename, PyFrame_GetLineNumber(f));
      Py_DECREF(f);
      return r;
    }
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  Py_RETURN_NONE;
}

} // namespace npc::trace
