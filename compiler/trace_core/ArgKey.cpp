#include "ArgKey.hpp"

#include "TraceState.hpp"

#include <cmath>

namespace npc::trace {
namespace {

struct KeyConfig {
  PyTypeObject* ndarray = nullptr;
  PyObject* traced = nullptr;     // dict: dtype -> True/False
  PyObject* traced_fn = nullptr;  // fills it
  PyObject* slow_key = nullptr;
  PyObject* s_dtype = nullptr;
  PyObject* s_char = nullptr;
  PyObject* s_shape = nullptr;
  PyObject* s_strides = nullptr;
};

KeyConfig& cfg() {
  static KeyConfig c;
  return c;
}

// 1 traced, 0 not, -1 error.
int traced(PyObject* dtype) {
  KeyConfig& c = cfg();
  PyObject* got = PyDict_GetItemWithError(c.traced, dtype);
  if (!got) {
    if (PyErr_Occurred()) {
      return -1;
    }
    PyObject* r = PyObject_CallOneArg(c.traced_fn, dtype);
    if (!r) {
      return -1;
    }
    int t = PyObject_IsTrue(r);
    Py_DECREF(r);
    return t;
  }
  return PyObject_IsTrue(got);
}

// ((dtype, dtype.char), shape, strides), or None for a dtype the tracer leaves alone:
// replay._key's rule for an ndarray.
PyObject* array_key(PyObject* a) {
  KeyConfig& c = cfg();
  PyObject* dtype = PyObject_GetAttr(a, c.s_dtype);
  if (!dtype) {
    return nullptr;
  }
  int t = traced(dtype);
  if (t <= 0) {
    Py_DECREF(dtype);
    if (t < 0) {
      return nullptr;
    }
    Py_RETURN_NONE;
  }
  PyObject* ch = PyObject_GetAttr(dtype, c.s_char);
  PyObject* shape = ch ? PyObject_GetAttr(a, c.s_shape) : nullptr;
  PyObject* strides = shape ? PyObject_GetAttr(a, c.s_strides) : nullptr;
  PyObject* dk = strides ? PyTuple_Pack(2, dtype, ch) : nullptr;
  PyObject* key = dk ? PyTuple_Pack(3, dk, shape, strides) : nullptr;
  Py_DECREF(dtype);
  Py_XDECREF(ch);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(dk);
  return key;
}

// (float, v), with its sign where v is zero (0.0 == -0.0 as keys, not as constants),
// or None for NaN (never equal to itself): replay._value_key's rule for a float.
PyObject* float_key(PyObject* a) {
  const double v = PyFloat_AS_DOUBLE(a);
  if (v != v) {
    Py_RETURN_NONE;
  }
  auto type = reinterpret_cast<PyObject*>(&PyFloat_Type);
  if (v != 0.0) {
    return PyTuple_Pack(2, type, a);
  }
  PyObject* sign = PyFloat_FromDouble(std::copysign(1.0, v));
  PyObject* key = sign ? PyTuple_Pack(3, type, a, sign) : nullptr;
  Py_XDECREF(sign);
  return key;
}

PyObject* one_key(PyObject* a) {
  KeyConfig& c = cfg();
  PyTypeObject* t = Py_TYPE(a);
  if (t == c.ndarray) {
    return array_key(a);
  }
  if (t == &PyFloat_Type) {
    return float_key(a);
  }
  if (t == &PyLong_Type || t == &PyBool_Type || a == Py_None) {  // (type, a)
    return PyTuple_Pack(2, reinterpret_cast<PyObject*>(t), a);
  }
  return PyObject_CallOneArg(c.slow_key, a);
}

PyObject* take(PyObject* options, const char* name) {
  return take_option(options, name, "arg_key");
}

} // namespace

bool configure_arg_key(PyObject* options) {
  if (!PyDict_Check(options)) {
    PyErr_SetString(PyExc_TypeError, "arg_key configure: a dict");
    return false;
  }
  KeyConfig& c = cfg();
  PyObject* nd = take(options, "ndarray");
  c.traced = take(options, "traced");
  c.traced_fn = take(options, "traced_fn");
  c.slow_key = take(options, "slow_key");
  if (!nd || !c.traced || !c.traced_fn || !c.slow_key) {
    return false;
  }
  if (!PyType_Check(nd) || !PyDict_Check(c.traced)) {
    PyErr_SetString(PyExc_TypeError, "arg_key configure: ndarray a class, traced a dict");
    return false;
  }
  c.ndarray = reinterpret_cast<PyTypeObject*>(nd);
  c.s_dtype = PyUnicode_InternFromString("dtype");
  c.s_char = PyUnicode_InternFromString("char");
  c.s_shape = PyUnicode_InternFromString("shape");
  c.s_strides = PyUnicode_InternFromString("strides");
  return c.s_dtype && c.s_char && c.s_shape && c.s_strides;
}

PyObject* arg_key(PyObject* args) {
  if (!cfg().ndarray) {
    PyErr_SetString(PyExc_RuntimeError, "arg_key: not configured");
    return nullptr;
  }
  if (!PyTuple_Check(args)) {
    PyErr_SetString(PyExc_TypeError, "arg_key: a tuple of arguments");
    return nullptr;
  }
  const Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject* key = PyTuple_New(n);
  if (!key) {
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* k = one_key(PyTuple_GET_ITEM(args, i));
    if (!k) {
      Py_DECREF(key);
      return nullptr;
    }
    if (k == Py_None) {  // an argument with no key: the call has none
      Py_DECREF(key);
      return k;
    }
    PyTuple_SET_ITEM(key, i, k);
  }
  return key;
}

} // namespace npc::trace
