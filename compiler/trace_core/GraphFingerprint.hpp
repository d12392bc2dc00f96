#pragma once
// The exact structure of a flushed graph as tokens: every pending node's callable,
// label, inputs, constant arguments and dtype, and every leaf's name, dtype, shape and
// strides. Two equal fingerprints mean equal cache keys (graph/signature.py's ops_key
// and leaf metas): a call whose graph equals its site's last one is a cache hit without
// building the key in Python. Tokens may tell apart graphs whose keys are equal (1 vs
// True, dict order, strides with the same layout): that only costs the slow lookup.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace npc::trace {

// collect_graph(outputs) -> (leaves, pending, fingerprint or None): the nodes reachable
// from outputs in creation order, as graph/signature.py's collect returns them.
PyObject* collect_graph(PyObject* outputs);

bool ready_fingerprint_type();
extern PyTypeObject FingerprintType;

} // namespace npc::trace
