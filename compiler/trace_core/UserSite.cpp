#include "UserSite.hpp"

#include "TraceState.hpp"

#include <unordered_map>

namespace npc::trace {
namespace {

struct CodeInfo {
  bool internal;
  PyObject* filename;
};

// Keyed by code object, which the map keeps alive so that its address is never reused.
std::unordered_map<PyObject*, CodeInfo>& code_cache() {
  static std::unordered_map<PyObject*, CodeInfo> cache;
  return cache;
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
  Py_INCREF(key);
  return &cache.emplace(key, CodeInfo{internal, filename}).first->second;
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
