"""Loops whose slices move with the loop variable and keep their length (`x[i:i + w]`,
a mini-batch `perm[s:s + bs]`) compile their body once: the window is a view made per
iteration (api/loop_rewrite._window). A window clipped at an end has another shape: that
iteration is traced for it. Checked against NumPy, and for the body compiling once."""
import numpy as np
import pytest

import npcompile
from conftest import DEVICE, check, make
from test_trace_loops import COMPILED


def rolling_mean(x, w):
    out = np.empty(x.shape[0] - w + 1)
    for i in range(x.shape[0] - w + 1):
        out[i] = x[i:i + w].mean()
    return out


def batches(x, bs):
    for s in range(0, x.shape[0], bs):      # the last batch may be shorter
        x[s:s + bs] = x[s:s + bs] * 2.0 - x[s:s + bs].mean()
    return x


def sgd(X, y, bs, lr, seed):
    rng = np.random.default_rng(seed)
    w, b = np.zeros(X.shape[1]), 0.0
    perm = rng.permutation(X.shape[0])
    for s in range(0, X.shape[0], bs):
        idx = perm[s:s + bs]
        Xb, yb = X[idx], y[idx]
        p = 1 / (1 + np.exp(-(Xb @ w + b)))
        g = p - yb
        w -= lr * (Xb.T @ g) / len(idx)
        b -= lr * g.mean()
    return w, b


def centred(x, out):
    for i in range(1, x.shape[0] - 1):
        out[i - 1] = np.abs(x[i - 1:i + 2] - x[i]).sum()     # a window around i
    return out


@pytest.mark.parametrize("n,w", [(20, 3), (64, 8), (9, 9)])
def test_rolling_windows(n, w):
    check(rolling_mean, make((n,), np.float64), w)
    check(centred, make((n,), np.float64), np.zeros(n - 2))


@pytest.mark.parametrize("n,bs", [(64, 8), (70, 8), (9, 4)])
def test_batches_with_a_short_last_one(n, bs):
    check(batches, make((n, 3), np.float64), bs)
    X = make((n, 4), np.float64)
    check(sgd, X, (X[:, 0] > 0).astype(float), bs, 0.1, 7)


@pytest.mark.skipif(not COMPILED or DEVICE == "cuda", reason="compiled CPU path not in use")
def test_the_window_body_compiles_once(monkeypatch):
    monkeypatch.setenv("NPC_NATIVE_LOOPS", "0")     # (a compiled loop nest takes it whole)
    npcompile.reset()
    npcompile.jit(rolling_mean, choose=False)(make((200,), np.float64), 5)
    rep = npcompile.report()
    assert not rep["fallbacks"] and not rep["graph_breaks"]
    loop = [lp["summary"] for lp in rep["loops"] if "range" in lp["text"]]
    assert loop and "196 iterations, one compiled body" in loop[0], rep["loops"]
    assert "in one C++ loop" in loop[0]
    assert len(rep["compiles"]) <= 3
