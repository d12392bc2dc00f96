#pragma once
// A jitted call's argument key (api/replay.py arg_key) for positional arguments, in C:
// every jitted call computes one before it chooses a path, and Python's loop over the
// arguments cost 1.4-3.6 us a call on the GPU machine's host, a tenth of a small
// program's NumPy time. Arrays, floats, ints, bools and None are described here; any
// other argument is asked of Python's own rule (replay._key), so both give one key.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

// options: {"ndarray": np.ndarray, "traced": dtype -> bool cache (a dict), "traced_fn":
// dtype -> bool, filling it, "slow_key": any argument -> its key or None}.
bool configure_arg_key(PyObject* options);

// New reference: the key tuple of `args` (a tuple), or None where an argument has none.
PyObject* arg_key(PyObject* args);

} // namespace npc::trace
