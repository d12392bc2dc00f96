"""The native step executor (compiler/bindings/StepProgram.cpp) against eager NumPy:
kernels, views, in-place element updates and Python steps in one run, on the compiled
path (a kernel built, no fallback)."""
import copy

import os

import numpy as np
import pytest

import npcompile
from npcompile.backends import cpu
from npcompile.exec.engine import ENGINE

pytestmark = pytest.mark.skipif(
    not cpu.AVAILABLE or os.environ.get("NPC_BACKEND") == "reference",
    reason=cpu.UNAVAILABLE_REASON or "checks the compiled path")


def forward_substitution(L, b):
    n = b.shape[0]
    y = np.zeros_like(b)
    for i in range(n):
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    return y


def cholesky(A):
    """Right-looking: each column scaled in place, the trailing block updated."""
    n = A.shape[0]
    A = A.copy()
    for k in range(n):
        A[k, k] = np.sqrt(A[k, k])
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k + 1:, k])
    return A


def scalar_types(x):
    s = x[0] * 2.0          # a NumPy scalar out of a kernel
    t = x.sum()             # a reduction's scalar
    u = (x[1:] + 1.0)[0]    # an element of a computed array
    return s, t, u, x[2:] * s


def _programs():
    return [p.compiled for p in ENGINE.cache.entries.values() if p.compiled is not None]


def _check(fn, *args):
    npcompile.reset()
    want = fn(*copy.deepcopy(args))
    jf = npcompile.jit(fn, choose=False)
    for _ in range(3):          # traced, then replayed
        got = jf(*copy.deepcopy(args))
    rep = npcompile.report()
    assert not rep["fallbacks"], rep["fallbacks"]
    assert any(p.kernels for p in _programs())
    assert all(hasattr(p, "native") for p in _programs())
    want_t = want if isinstance(want, tuple) else (want,)
    got_t = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want_t, got_t):
        assert type(g) is type(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 7, 40])
def test_forward_substitution(n):
    rng = np.random.default_rng(n)
    L = np.tril(rng.random((n, n))) + n * np.eye(n)
    _check(forward_substitution, L, rng.standard_normal(n))


@pytest.mark.parametrize("n", [2, 16])
def test_cholesky(n):
    G = np.random.default_rng(0).standard_normal((n, n))
    _check(cholesky, G @ G.T + n * np.eye(n))


def test_scalar_types():
    _check(scalar_types, np.arange(6.0))


def test_update_of_a_read_only_base_copies():
    """`base[key] = v` where base cannot be written in place: NumPy's own error."""
    x = np.arange(5.0)
    x.flags.writeable = False

    def f(x):
        y = x + 1
        x[0] = y[1]
        return x
    with pytest.raises(ValueError):
        f(x)
    with pytest.raises(ValueError):
        npcompile.jit(f, choose=False)(x)
    assert x[0] == 0.0


def test_intermediates_are_released(tmp_path):
    """An unrolled loop's per-step arrays are let go of after their last reader: 60
    steps of an 8 MB stencil keep a few arrays alive, not 60 (480 MB)."""
    import subprocess
    import sys
    script = tmp_path / "loop.py"
    script.write_text(
        "import resource, numpy as np, npcompile\n"
        "@npcompile.jit(choose=False)\n"
        "def f(u):\n"
        "    for _ in range(60):\n"
        "        u = 0.5 * u + 0.25 * (np.roll(u, 1) + np.roll(u, -1))\n"
        "    return u\n"
        "u = np.random.default_rng(0).random(1 << 20)\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "f(u.copy())\n"
        "r = npcompile.report()\n"
        "assert not r['fallbacks'] and r['compiles'], r\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    grown_mb = int(out.stdout.split()[-1])
    assert grown_mb < 200, grown_mb
