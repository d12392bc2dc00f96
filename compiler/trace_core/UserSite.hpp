#pragma once
// The user's line that recorded an op: the innermost frame outside npcompile and NumPy
// (trace/breaks.py's user_frame, without materializing Python-level frame walks).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

// New reference: (filename, lineno), or None when every frame is internal.
PyObject* user_site();

} // namespace npc::trace
