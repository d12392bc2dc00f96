#pragma once
// The base of api/jit.Jitted: a jitted call in C up to its path choice. A call that the
// path choice has granted to plain NumPy (api/path_choice.py: its untimed calls between
// rechecks, or NumPy for good) runs the function's NumPy path from here, without
// entering Python: the key, the state lookup and the checks around them cost 3-10 us a
// call on the GPU machine's host, a tenth of a 0.1 ms program (tanh_diag 0.89x NumPy).
// Every other call, and every call made while a grant does not hold (a tracer active,
// keyword arguments, floating-point handling not known quiet, npcompile.reset() since
// the grant), is the subclass's `_call`.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

extern PyTypeObject JitCallType;

bool ready_jit_call_type();

// Grants made before this call are void (npcompile.reset(): the path choice forgets
// what it measured, and the next call compiles again).
void expire_grants();

} // namespace npc::trace
