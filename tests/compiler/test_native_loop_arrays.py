"""Names bound to new float64 arrays inside a compiled loop nest
(codegen/scalar_nest_arrays.py), against eager NumPy: Krylov methods and iterative
solvers (`y = A @ Q[:, k]`, `y = y - h * Q[:, j]`, `x = x + alpha * p`) run as one
compiled function, the caller's arrays a rebound name held are untouched, the arrays
handed back are new, and aliases (`z = y`) or names that hold numbers and arrays make
the loop run as Python. Each test checks the nest ran, or declined, with the report's words."""
import numpy as np
import pytest

import npcompile
from conftest import check, make, same
from test_native_loop import NATIVE, corpus, ran_native, summaries

pytestmark = NATIVE


# the corpus's own: GMRES's Arnoldi loop with modified Gram-Schmidt (y = A @ Q[:, k];
# y = y - H[j, k] * Q[:, j]), Lanczos with full reorthogonalisation (an operand computed
# first, a transpose: v - V[:, :j] @ (V[:, :j].T @ v))
gmres_lite = corpus("gmres_lite")
lanczos = corpus("lanczos")


def transposed_products(A, x, steps):
    out = np.zeros((steps, A.shape[1]))
    for k in range(steps):
        out[k, :] = A.T @ (A @ x * (k + 1.0)) + A[:, 0].T @ A
    return out


def steepest_descent(A, b, x, steps):
    r = b - A @ x
    for _ in range(steps):
        Ar = A @ r
        alpha = (r @ r) / (r @ Ar)
        x = x + alpha * r
        r = r - alpha * Ar
    return x, r


def rebound_then_scaled(w, V, m):
    v = w
    for j in range(m):
        v = w / (j + 1.0)
        v /= np.linalg.norm(v)
        V[j, :] = v
    return v


def rank_one_updates(u, steps):
    M = np.outer(u, u)
    for k in range(steps):
        M = M * 0.5 + np.outer(u, u) / (k + 1.0)
    return M


def aliased(x, steps):
    y = x + 1.0
    for _ in range(steps):
        y = y * 2.0
        z = y
    return z


def number_then_array(x, steps):
    for k in range(steps):
        y = 0.0
        y = x * k
    return y


def out_of_bounds_after_update(x, V, steps):
    for k in range(steps):
        x = x * 0.5
        V[k, 0] = x[0]
    return x


def diagonally_dominant(n, seed):
    a = make((n, n), np.float64, seed)
    return a + np.diag(np.abs(a).sum(axis=1) + 1.0)


@pytest.mark.parametrize("n,m", [(14, 8), (40, 12)])
def test_gmres_arnoldi_runs_as_one_function(n, m):
    A = diagonally_dominant(n, 1)
    b = make((n,), np.float64, 2)
    x, res = npcompile.jit(gmres_lite)(A, b, m)
    ex, eres = gmres_lite(A, b, m)
    # (the nest's dot products add in another order than BLAS's: last bits, which
    # Gram-Schmidt carries on)
    np.testing.assert_allclose(x, ex, rtol=1e-9, atol=1e-12)
    assert x.dtype == ex.dtype and type(res) is type(eres)
    assert ran_native()


def test_steepest_descent_rebinds_parameters_and_leaves_the_callers_arrays():
    A = diagonally_dominant(20, 3)
    b = make((20,), np.float64, 4)
    x0 = np.zeros(20)
    keep = x0.copy()
    f = npcompile.jit(steepest_descent)
    x, r = f(A, b, x0, 15)
    ex, er = steepest_descent(A, b, x0.copy(), 15)
    np.testing.assert_allclose(x, ex, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r, er, rtol=1e-12, atol=1e-12)
    assert x.dtype == np.float64 and x.flags.c_contiguous and x is not x0
    same(x0, keep)          # rebinding x never wrote into the caller's array
    assert ran_native()


def test_a_parameter_rebound_then_updated_in_place():
    w = make((16,), np.float64, 5)
    check(rebound_then_scaled, w, np.zeros((9, 16)), 9)
    assert ran_native()


def test_matrices_bound_in_the_loop():
    check(rank_one_updates, make((7,), np.float64, 6), 10)
    assert ran_native()


def test_an_alias_nothing_changes_in_place_is_a_copy():
    check(aliased, make((5,), np.float64, 7), 10)
    assert ran_native()     # (test_native_loop_views.py: one changed in place runs Python)


def test_a_name_holding_a_number_and_an_array_runs_as_python():
    check(number_then_array, make((5,), np.float64, 8), 10)
    assert not ran_native()


def test_an_error_after_a_rebinding_is_numpys_and_the_arrays_are_put_back():
    x = make((4,), np.float64, 9)
    V = np.zeros((3, 2))
    with pytest.raises(IndexError):
        npcompile.jit(out_of_bounds_after_update)(x.copy(), V, 10)
    eager = np.zeros((3, 2))
    with pytest.raises(IndexError):
        out_of_bounds_after_update(x.copy(), eager, 10)
    same(V, eager)          # the Python loop reran from the arrays as they were


@pytest.mark.parametrize("n,m", [(12, 9), (30, 10)])
def test_lanczos_with_full_reorthogonalisation(n, m):
    a = make((n, n), np.float64, 10)
    A = (a + a.T) / 2
    v0 = make((n,), np.float64, 11)
    got = npcompile.jit(lanczos)(A, v0, m)
    exp = lanczos(A, v0, m)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    np.testing.assert_allclose(got, exp, rtol=1e-9, atol=1e-9 * np.abs(exp).max())
    assert ran_native()


def test_transposes_and_products_of_expressions():
    check(transposed_products, make((6, 4), np.float64, 12), make((4,), np.float64, 13), 9,
          ulp=4)
    assert ran_native()


def test_a_short_loop_of_whole_arrays_is_traced_with_the_code_around_it():
    """Below LOOP_MIN iterations the loop fuses into the caller's graph (which replays),
    as before names bound to arrays made it a nest."""
    e = npcompile.explain(steepest_descent)(diagonally_dominant(6, 3), make((6,), np.float64, 4),
                                            np.zeros(6), 3)
    assert e.graph_count == 1 and e.graph_break_count == 0
    assert not ran_native()
