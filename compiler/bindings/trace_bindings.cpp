// npcompile._native.trace: the tracer's C++ core (compiler/trace_core). Its types and
// functions are plain CPython ones (METH_O, METH_NOARGS): they are called per traced op.
#include "bindings.hpp"

#include "ArgKey.hpp"
#include "GraphFingerprint.hpp"
#include "JitCall.hpp"
#include "LazyObject.hpp"
#include "NodeObject.hpp"
#include "OpRecorder.hpp"
#include "StorageObject.hpp"
#include "TraceState.hpp"
#include "UserSite.hpp"

namespace py = pybind11;

namespace npc::bindings {
namespace {

PyObject* current(PyObject*, PyObject*) {
  PyObject* t = trace::current_tracer();
  t = t ? t : Py_None;
  Py_INCREF(t);
  return t;
}

PyObject* set_current(PyObject*, PyObject* tracer) {
  trace::set_current_tracer(tracer);
  Py_RETURN_NONE;
}

PyObject* configure(PyObject*, PyObject* options) {
  if (!trace::configure(options)) {
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* user_site(PyObject*, PyObject*) { return trace::user_site(); }

PyObject* set_op_budget(PyObject*, PyObject* n) {
  const Py_ssize_t v = PyLong_AsSsize_t(n);
  if (v == -1 && PyErr_Occurred()) {
    return nullptr;
  }
  trace::config().op_budget = v;
  Py_RETURN_NONE;
}

PyObject* collect_graph(PyObject*, PyObject* outputs) { return trace::collect_graph(outputs); }

PyObject* learned_count(PyObject*, PyObject*) {
  return PyLong_FromSsize_t(trace::learned_count());
}

PyObject* forget_learned(PyObject*, PyObject*) {
  trace::forget_learned();
  Py_RETURN_NONE;
}

PyObject* configure_arg_key(PyObject*, PyObject* options) {
  if (!trace::configure_arg_key(options)) {
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyObject* arg_key(PyObject*, PyObject* args) { return trace::arg_key(args); }

PyObject* expire_grants(PyObject*, PyObject*) {
  trace::expire_grants();
  Py_RETURN_NONE;
}

PyMethodDef functions[] = {
    {"current", current, METH_NOARGS, "the tracer active on this thread, or None"},
    {"set_current", set_current, METH_O, "make a tracer (or None) this thread's current one"},
    {"configure", configure, METH_O, "the package's classes and slow paths (trace/native.py)"},
    {"set_op_budget", set_op_budget, METH_O,
     "ops in one trace past which the recorder calls tracer.over_budget() (trace/budget.py)"},
    {"user_site", user_site, METH_NOARGS, "(filename, lineno) of the user's innermost line"},
    {"collect_graph", collect_graph, METH_O,
     "(leaves, pending, fingerprint or None) of the graph computing outputs"},
    {"configure_arg_key", configure_arg_key, METH_O,
     "the types and Python rules arg_key uses (api/replay.py)"},
    {"arg_key", arg_key, METH_O,
     "the key tuple of a tuple of positional arguments, or None (api/replay.py arg_key)"},
    {"expire_grants", expire_grants, METH_NOARGS,
     "void every JitCall's grants to the NumPy path (npcompile.reset())"},
    {"learned_count", learned_count, METH_NOARGS, "entries in the op recorder's dtype cache"},
    {"forget_learned", forget_learned, METH_NOARGS, "empty the op recorder's dtype cache"},
    {nullptr, nullptr, 0, nullptr}};

void add_type(py::module_& m, const char* name, PyTypeObject* type) {
  m.add_object(name, py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(type)));
}

} // namespace

void bind_trace(py::module_& m) {
  if (!trace::ready_node_type() || !trace::ready_storage_type() || !trace::ready_lazy_type() ||
      !trace::ready_fingerprint_type() || !trace::ready_jit_call_type()) {
    throw py::error_already_set();
  }
  add_type(m, "Node", &trace::NodeType);
  add_type(m, "StorageBase", &trace::StorageBaseType);
  add_type(m, "LazyBase", &trace::LazyBaseType);
  add_type(m, "Fingerprint", &trace::FingerprintType);
  add_type(m, "JitCall", &trace::JitCallType);
  if (PyModule_AddFunctions(m.ptr(), functions) != 0) {
    throw py::error_already_set();
  }
}

} // namespace npc::bindings
