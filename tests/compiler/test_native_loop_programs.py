"""A small corpus of scalar-loop programs as courses write them (DP on strings given as
character arrays, sorting, sieves, histograms by loop, cellular automata, random walks),
each run through npcompile.jit against eager NumPy, and each loop nest in it compiled as
one function (codegen/scalar_nest.py): none runs as Python."""
import numpy as np
import pytest

from conftest import check
from test_native_loop import NATIVE, ran_native, summaries

pytestmark = NATIVE


def sieve_count(n):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[0] = is_prime[1] = False
    for p in range(2, int(n ** 0.5) + 1):
        if is_prime[p]:
            is_prime[p * p::p] = False
    count = 0
    for k in range(n + 1):
        if is_prime[k]:
            count += 1
    return is_prime, count


def edit_distance(a, b):
    n, m = len(a), len(b)
    D = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]


def lcs(a, b):
    n, m = len(a), len(b)
    C = np.zeros((n + 1, m + 1), dtype=np.int32)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                C[i, j] = C[i - 1, j - 1] + 1
            else:
                C[i, j] = max(C[i - 1, j], C[i, j - 1])
    return C[n, m]


def knapsack(w, v, cap):
    n = len(w)
    K = np.zeros((n + 1, cap + 1), dtype=np.int64)
    for i in range(1, n + 1):
        for c in range(cap + 1):
            K[i, c] = K[i - 1, c]
            if w[i - 1] <= c:
                cand = K[i - 1, c - w[i - 1]] + v[i - 1]
                if cand > K[i, c]:
                    K[i, c] = cand
    return K[n, cap]


def bubble_sort(x):
    a = x.copy()
    n = len(a)
    for i in range(n):
        swapped = False
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swapped = True
        if not swapped:
            break
    return a


def insertion_sort(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def prefix_sums(x):
    out = np.empty(len(x), dtype=x.dtype)
    total = 0
    for i in range(len(x)):
        total += x[i]
        out[i] = total
    return out, total


def lis(x):
    n = len(x)
    L = np.ones(n, dtype=np.int32)
    for i in range(1, n):
        for j in range(i):
            if x[j] < x[i] and L[j] + 1 > L[i]:
                L[i] = L[j] + 1
    return L.max()


def collatz(N):
    lengths = np.zeros(N, dtype=np.int64)
    for start in range(1, N):
        n = start
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        lengths[start] = steps
    return lengths


def histogram(data, nbins):
    counts = np.zeros(nbins, dtype=np.int64)
    for i in range(data.shape[0]):
        counts[data[i]] += 1
    return counts


def matrix_chain(dims):
    n = len(dims) - 1
    M = np.zeros((n, n), dtype=np.int64)
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            M[i, j] = 2 ** 62
            for k in range(i, j):
                cost = M[i, k] + M[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost < M[i, j]:
                    M[i, j] = cost
    return M[0, n - 1]


def rule_automaton(cells, steps, rule):
    n = cells.shape[0]
    hist = np.zeros((steps, n), dtype=np.uint8)
    hist[0] = cells
    for t in range(1, steps):
        for i in range(n):
            left = hist[t - 1, (i - 1) % n]
            right = hist[t - 1, (i + 1) % n]
            pattern = (left << 2) | (hist[t - 1, i] << 1) | right
            hist[t, i] = (rule >> pattern) & 1      # the rule number's bits
    return hist


def random_walk(steps):
    pos = np.zeros(steps.shape[0] + 1, dtype=np.int32)
    returns = 0
    for i in range(steps.shape[0]):
        pos[i + 1] = pos[i] + steps[i]
        if pos[i + 1] == 0:
            returns += 1
    return pos, returns


def gc_content(seq):
    gc = 0
    for i in range(len(seq)):
        if seq[i] == 'G' or seq[i] == 'C':
            gc += 1
    return gc / len(seq)


def count_uint8(img, t):
    above = 0
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            if img[i, j] > t:
                above += 1
    return above


def gc_local(seq):
    gc = 0
    for i in range(len(seq)):
        ch = seq[i]
        if ch == 'G' or ch == 'C':
            gc += 1
    return gc


def life(grid, steps):
    n, m = grid.shape
    for s in range(steps):
        new = grid.copy()
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                nb = (grid[i-1, j-1] + grid[i-1, j] + grid[i-1, j+1] + grid[i, j-1]
                      + grid[i, j+1] + grid[i+1, j-1] + grid[i+1, j] + grid[i+1, j+1])
                if grid[i, j] == 1 and (nb < 2 or nb > 3):
                    new[i, j] = 0
                elif grid[i, j] == 0 and nb == 3:
                    new[i, j] = 1
        grid = new
    return grid


def binary_search_all(sorted_a, queries):
    out = np.empty(len(queries), dtype=np.int64)
    for q in range(len(queries)):
        lo, hi = 0, len(sorted_a)
        while lo < hi:
            mid = (lo + hi) // 2
            if sorted_a[mid] < queries[q]:
                lo = mid + 1
            else:
                hi = mid
        out[q] = lo
    return out


def hist_float(x, nbins, lo, hi):
    counts = np.zeros(nbins, dtype=np.int64)
    w = (hi - lo) / nbins
    for i in range(x.size):
        b = int((x[i] - lo) / w)
        if b == nbins:
            b -= 1
        counts[b] += 1
    return counts


def selection_sort(a):
    n = a.shape[0]
    for i in range(n):
        k = i
        for j in range(i + 1, n):
            if a[j] < a[k]:
                k = j
        a[i], a[k] = a[k], a[i]
    return a


def rle(x):
    runs = np.zeros(len(x), dtype=np.int32)
    k = 0
    runs[0] = 1
    for i in range(1, len(x)):
        if x[i] == x[i - 1]:
            runs[k] += 1
        else:
            k += 1
            runs[k] = 1
    return runs[:k + 1]


def word_count(text):
    words = 0
    inword = False
    for i in range(len(text)):
        if text[i] == ' ':
            inword = False
        elif not inword:
            inword = True
            words += 1
    return words


def dna(n, seed):
    return np.array(list(np.random.default_rng(seed).choice(list("ACGT"), n)))


rng = np.random.default_rng(0)
PROGRAMS = [
    (sieve_count, (1000,)),
    (edit_distance, (dna(30, 1), dna(25, 2))),
    (edit_distance, (np.frombuffer(b"kitten", np.uint8), np.frombuffer(b"sitting", np.uint8))),
    (edit_distance, (dna(20, 1).astype("S1"), dna(26, 2).astype("S1"))),
    (lcs, (dna(30, 3), dna(40, 4))),
    (lcs, (np.array(["ab", "c", "ab", "d"]), np.array(["c", "ab", "ab"]))),
    (knapsack, (rng.integers(1, 10, 12).astype(np.int32), rng.integers(1, 50, 12).astype(np.int32),
                40)),
    (bubble_sort, (rng.integers(-100, 100, 30).astype(np.int16),)),
    (insertion_sort, (rng.random(30),)),
    (insertion_sort, (rng.integers(0, 1000, 30).astype(np.uint32),)),
    (prefix_sums, (rng.integers(0, 100, 30).astype(np.int64),)),
    (prefix_sums, (rng.integers(0, 100, 30).astype(np.uint16),)),
    (prefix_sums, (rng.integers(0, 100, 30).astype(np.int8),)),     # int8 wraps: NumPy's
    (lis, (rng.integers(0, 100, 40),)),
    (collatz, (200,)),
    (histogram, (rng.integers(0, 10, 300).astype(np.uint8), 10)),
    (histogram, (rng.integers(0, 10, 300).astype(np.uint8), 9)),    # IndexError
    (matrix_chain, (rng.integers(2, 30, 8),)),
    (rule_automaton, ((rng.random(40) < 0.5).astype(np.uint8), 10, 110)),
    (rule_automaton, ((rng.random(41) < 0.5).astype(np.uint8), 12, 30)),
    (rule_automaton, ((rng.random(41) < 0.5).astype(np.uint8), 12, np.uint8(90))),
    (random_walk, (rng.choice(np.array([-1, 1], dtype=np.int32), 500),)),
    (gc_content, (dna(100, 5),)),
    (count_uint8, ((rng.random((8, 9)) * 255).astype(np.uint8), 100)),
    (gc_local, (dna(50, 1),)),
    (life, ((rng.random((10, 12)) < 0.4).astype(np.uint8), 3)),
    (binary_search_all, (np.sort(rng.random(50)), rng.random(20))),
    (hist_float, (rng.random(200), 10, 0.0, 1.0)),
    (selection_sort, (rng.integers(-100, 100, 30).astype(np.int8),)),
    (rle, (rng.integers(0, 3, 40).astype(np.int16),)),
    (word_count, (np.array(list("the quick  brown fox ")),)),
]
ERRORS = {"histogram": 1, "prefix_sums": 2}     # (which case of it) stops and runs Python


@pytest.mark.parametrize("k", range(len(PROGRAMS)),
                         ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(PROGRAMS)])
def test_program(k):
    fn, args = PROGRAMS[k]
    check(fn, *args)
    nth = [j for j, (f, _) in enumerate(PROGRAMS) if f is fn].index(k)
    if ERRORS.get(fn.__name__) == nth:
        return
    assert ran_native()
    assert not [s for s in summaries()
                if "runs as Python" in s or "not a scalar loop nest" in s]
