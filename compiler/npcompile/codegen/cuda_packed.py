"""Lane-split sums of 1- and 2-byte integers along contiguous rows (the int8 row sum),
for codegen/cuda.py. Read one element per lane and added in 64 bits, such a sum costs
some 30 integer instructions per 8 bytes: the GPU was bound on them at half its memory
bandwidth. Here each lane reads 16-byte words, several words before the first add, and
dp4a/dp2a sum a word's bytes into an exact 32-bit partial; one add into the accumulator
per loop trip. Rows need not start 16-byte aligned (rows of 1000 int8s alternate 0 and
8 mod 16): the few elements before the first aligned word (head) and after the last
(tail) are read one per lane."""
import numpy as np

from .cpp_ops import ctype

PRELUDE = """\
// 16 bytes of 1- or 2-byte integers added into p: exact (at most 8 words per partial)
__device__ __forceinline__ int npc_sum16_i8(uint4 w, int p) {
  p = __dp4a((int)w.x, 0x01010101, p); p = __dp4a((int)w.y, 0x01010101, p);
  p = __dp4a((int)w.z, 0x01010101, p); return __dp4a((int)w.w, 0x01010101, p); }
__device__ __forceinline__ int npc_sum16_u8(uint4 w, int p) {
  unsigned q = __dp4a(w.x, 0x01010101u, (unsigned)p); q = __dp4a(w.y, 0x01010101u, q);
  q = __dp4a(w.z, 0x01010101u, q); return (int)__dp4a(w.w, 0x01010101u, q); }
// bool: any nonzero byte counts 1, as the element loop's (int)(b != 0)
__device__ __forceinline__ int npc_sum16_b(uint4 w, int p) {
  const unsigned m = 0x01010101u;
  return npc_sum16_u8(make_uint4(__vcmpne4(w.x, 0u) & m, __vcmpne4(w.y, 0u) & m,
                                 __vcmpne4(w.z, 0u) & m, __vcmpne4(w.w, 0u) & m), p); }
__device__ __forceinline__ int npc_sum16_i16(uint4 w, int p) {
  p = __dp2a_lo((int)w.x, 0x0101, p); p = __dp2a_lo((int)w.y, 0x0101, p);
  p = __dp2a_lo((int)w.z, 0x0101, p); return __dp2a_lo((int)w.w, 0x0101, p); }
__device__ __forceinline__ int npc_sum16_u16(uint4 w, int p) {
  unsigned q = __dp2a_lo(w.x, 0x0101u, (unsigned)p); q = __dp2a_lo(w.y, 0x0101u, q);
  q = __dp2a_lo(w.z, 0x0101u, q); return (int)__dp2a_lo(w.w, 0x0101u, q); }
"""

_WORD_SUM = {("i", 1): "npc_sum16_i8", ("u", 1): "npc_sum16_u8", ("b", 1): "npc_sum16_b",
             ("i", 2): "npc_sum16_i16", ("u", 2): "npc_sum16_u16"}
MAX_WORDS = 8   # words per partial: 8 * 16 bytes of uint16 stay far below 2**31
LANE_BYTES = 32  # loaded per lane per trip (measured: 16 ran 5% slower, 64 no faster)


def packed_load(e, buffer_of):
    """The load whose 1- or 2-byte integers the sum e adds, or None. The operand is the
    load or a value-preserving cast of it (summing exact small integers in any integer
    or double accumulator gives the same result in any grouping)."""
    if e.op != "sum" or e.dtype.kind not in "iuf":
        return None
    x = e.inputs[0]
    ld = x.inputs[0] if x.kind == "cast" else x
    if ld.kind != "load" or (ld.dtype.kind, ld.dtype.itemsize) not in _WORD_SUM:
        return None
    if x is not ld and (x.dtype.kind not in "iuf" or not np.can_cast(ld.dtype, x.dtype, "safe")):
        return None
    return ld if buffer_of(ld).contiguous else None


def emit_packed_sum(em, ld, acc, AT, rid, v, n, xidx, lane, width, words):
    """acc (type AT) += this lane's share of the row's n elements; `v` is the reduced
    index in xidx, `words` the 16-byte words each lane loads per loop trip."""
    s = ld.dtype.itemsize
    per = 16 // s
    lT, IT = ctype(ld.dtype), em.IT
    row, hd, nw, tl = f"row{rid}", f"hd{rid}", f"nw{rid}", f"tl{rid}"
    emit = em.cur.emit
    emit(f"const {lT}* {row} = &{em._load(ld, tuple('0' if q == v else q for q in xidx))};")
    emit(f"const int {hd} = min({n}, (int)(((16u - ((unsigned)(unsigned long long){row} & 15u)) & 15u) / {s}u));")
    emit(f"const {IT} {nw} = ({n} - {hd}) / {per};")
    emit(f"const {IT} {tl} = {hd} + {nw} * {per};")

    def elem(j):
        return f"(int)({row}[{j}] != 0)" if ld.dtype.kind == "b" else f"(int){row}[{j}]"
    emit(f"if ({lane} < {hd}) {acc} += ({AT}){elem(lane)};")
    emit(f"if ({lane} < {n} - {tl}) {acc} += ({AT}){elem(f'{tl} + {lane}')};")
    w = f"w{rid}"
    emit(f"const uint4* {w} = (const uint4*)({row} + {hd});")
    c = f"c{rid}"
    em.open_loop(f"for ({IT} {c} = {lane}; {c} < {nw}; {c} += {words} * {width})", [])
    word_sum = _WORD_SUM[(ld.dtype.kind, s)]
    # every load first (an index past the row rereads its last word), then the adds
    for k in range(words):
        at = c if k == 0 else f"({c} + {k} * {width} < {nw} ? {c} + {k} * {width} : {nw} - 1)"
        em.cur.emit(f"const uint4 q{rid}_{k} = __ldg(&{w}[{at}]);")
    em.cur.emit(f"int p{rid} = {word_sum}(q{rid}_0, 0);")
    for k in range(1, words):
        em.cur.emit(f"if ({c} + {k} * {width} < {nw}) p{rid} = {word_sum}(q{rid}_{k}, p{rid});")
    em.cur.emit(f"{acc} += ({AT})p{rid};")
    em.close_loop()
    em.packed = True


def words_per_lane(n, per, width):
    """16-byte words per lane per trip: LANE_BYTES' worth, no more than the row needs
    when the lane count is known here (warp and block schemes)."""
    words = max(1, min(MAX_WORDS, LANE_BYTES // 16))
    if width is not None:
        words = min(words, -(-(n // per + 1) // width))
    return max(1, words)
