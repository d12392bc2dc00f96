"""A CPU program's steps handed to the native executor (npcompile._native.cpu.StepProgram,
compiler/bindings/StepProgram.cpp): kernels with their checks and allocations worked out
here once, views and in-place element updates as NumPy's own getitem/setitem, every
other NumPy step as the Python callable program_base made for it."""
import operator

import numpy as np

from ..fusion.partition import scalar_source
from ..graph import calls
from ..graph.node import Ref
from .kernel_inputs import layout_mode
from .step_calls import has_ref

MIN_CHUNK_ELEMENTS = 1 << 15
# the fewest columns one call computes where calls split a dimension other than the first
MIN_SPLIT_COLUMNS = 64
# Outputs this large come from the runtime's buffer pool (pages already faulted in:
# first-touch faults from several threads serialize in the OS); smaller ones from NumPy.
# glibc serves 128 KiB and up with fresh mmap pages: a 400 KB output per step of a
# 50,000-point stencil loop faulted 100 pages every time (heat equation, 100 steps:
# 25.9 ms with a 1 MiB threshold, 4.9 ms with this one; NumPy 6 ms).
POOL_MIN_BYTES = 1 << 16


def build(native, program):
    """The native StepProgram of a cpu.Program whose kernels have addresses."""
    sp = native.StepProgram(len(program.metas), list(program.output_pos))
    pcalls = program.calls
    sp.set_scalarize(lambda p, vals: _scalarize(pcalls, p, vals))
    reads = []       # per step: the slots it reads
    for kind, step in program.steps:
        if kind == "kernel":
            _add_kernel(sp, step, program.metas, pcalls)
            # the argument whose type a 0-d astype/copy result follows (_scalarize)
            reads.append(list(step.input_pos) + [
                q for p in step.output_pos if program.metas[p][0] == ()
                for q in (scalar_source(pcalls, p)[1],) if q is not None])
            continue
        p = step
        fn, args, kwargs, inputs = pcalls[p]
        reads.append(inputs)
        if fn is operator.getitem and not kwargs and len(args) == 2 and \
                type(args[0]) is Ref and not has_ref(args[1]):
            sp.add_getitem(p, inputs[args[0].i], args[1])
        elif p in program.reuse and _plain_assignment(args, kwargs):
            value = args[6]
            slot = inputs[value.i] if type(value) is Ref else -1
            key = Ellipsis if args[2] is calls.NOKEY else args[2]
            sp.add_setitem(p, inputs[args[0].i], key, slot, None if slot >= 0 else value,
                           bool(args[5]), program.step_fns[p])
        else:
            sp.add_call(p, program.step_fns[p])
    sp.set_releases(_releases(reads, program.output_pos))
    return sp


def _releases(reads, outputs):
    """Per step, the slots read for the last time there (never the graph's outputs)."""
    last = {}
    for i, slots in enumerate(reads):
        for s in slots:
            last[s] = i
    keep = set(outputs)
    out = [[] for _ in reads]
    for s, i in last.items():
        if s not in keep:
            out[i].append(s)
    return out


def _plain_assignment(args, kwargs):
    """update(base, chain, key, fn, kwargs, c_order, value): `base[key] = value` with no
    view chain, no ufunc, one operand and a constant key."""
    return (not kwargs and len(args) == 7 and type(args[0]) is Ref and args[1] == () and
            args[3] is None and not args[4] and not has_ref(args[2]) and
            (type(args[6]) is Ref or not has_ref(args[6])))


def _add_kernel(sp, ck, metas, pcalls):
    k = ck.kernel
    outs = []
    for p in ck.output_pos:
        shape, dtype = metas[p]
        nbytes = dtype.itemsize
        for d in shape:
            nbytes *= d
        scalar = 0
        if shape == ():
            got, _ = scalar_source(pcalls, p)
            scalar = 2 if got is None else int(got)
        outs.append((p, dtype, dtype.itemsize, shape, nbytes, nbytes >= POOL_MIN_BYTES, scalar))
    ins = [(p, b.dtype, b.dtype.itemsize, b.shape, layout_mode(b), b.strides)
           for b, p in zip(k.inputs, ck.input_pos)]
    parts = list(ck.part_itemsizes) if ck.part_address is not None else []
    rows = k.shape[k.split_dim] if k.shape else 1     # what the calls split
    grain = max(1, rows) if k.serial else max(1, MIN_CHUNK_ELEMENTS // ck.row_work)
    if k.split_dim or k.columns:
        # calls split the columns under a scan along axis 0 (or of a column reduction,
        # codegen/cpp_columns.py): each call walks all the rows, so a few columns per
        # call would stride down the rows a cache line at a time (and calls of two
        # threads would share lines)
        grain = max(grain, MIN_SPLIT_COLUMNS)
    sp.add_kernel(k.name, ck.address, ck.part_address or 0, outs, ins, list(k.extents),
                  rows, grain,
                  any(d == 0 for d in k.shape), k.chunks, parts, k.flag_index is not None)


def _scalarize(pcalls, p, vals):
    """A 0-d result of astype/copy of an argument: a scalar where the argument was one
    (as NumPy)."""
    _, leaf = scalar_source(pcalls, p)
    v = vals[p]
    return v[()] if isinstance(vals[leaf], np.generic) else v
