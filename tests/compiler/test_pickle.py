"""Jitted functions pickle by reference, like the functions they wrap: multiprocessing
can send them (issue 16)."""
import multiprocessing
import pickle

import numpy as np

import npcompile


@npcompile.jit
def decorated(x):
    return np.sin(x) * 2 + 1


def plain(x):
    return x * 3 - 1


wrapped = npcompile.jit(plain, choose=False)


def test_a_decorated_function_is_itself_after_a_round_trip():
    assert pickle.loads(pickle.dumps(decorated)) is decorated


def test_a_wrapped_function_is_jitted_again_with_its_options():
    back = pickle.loads(pickle.dumps(wrapped))
    assert isinstance(back, npcompile.Jitted) and back.original is plain
    assert back.chooser is None and back.options == wrapped.options
    x = np.linspace(0, 1, 7)
    np.testing.assert_array_equal(back(x), plain(x))


def test_a_pool_maps_a_jitted_function():
    xs = [np.linspace(0, 1, 5) * k for k in range(3)]
    with multiprocessing.get_context("fork").Pool(2) as pool:
        got = pool.map(decorated, xs)
    for g, x in zip(got, xs):
        np.testing.assert_allclose(g, np.sin(x) * 2 + 1, rtol=1e-15)


def big(x):
    return (np.sqrt(x * x + 1.0) * 2).sum()


def test_a_forked_child_runs_large_kernels():
    """The child of fork() has none of the parent's worker threads: its kernels run on
    its one thread instead of waiting for them forever."""
    j = npcompile.jit(big, choose=False)
    x = np.linspace(0, 1, 1 << 21)
    want = j(x)                      # the parent's pool has started its workers
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(j, (x,)).get(timeout=60)
    assert got == want



_FORK_AND_EXIT = """
import os, sys, time
import numpy as np
import npcompile
j = npcompile.jit(lambda x: (np.sqrt(x * x + 1.0) * 2).sum(), choose=False)
x = np.linspace(0, 1, 1 << 21)
want = j(x)                       # the parent's workers are waiting for work now
pid = os.fork()
if pid == 0:
    sys.exit(0 if j(x) == want else 3)   # Python's exit: the runtime's destructors run
deadline = time.time() + 30
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        sys.exit(os.WEXITSTATUS(status))
    time.sleep(0.05)
os.kill(pid, 9)
sys.exit(5)
"""


def test_a_forked_child_computes_and_exits():
    """A child of fork() has none of the parent's worker threads: its kernels run on its
    own thread, and at exit nothing waits for the missing workers (a condition variable
    they were waiting on hung its destruction)."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", _FORK_AND_EXIT], timeout=120)
    assert r.returncode == 0, "the child hung (5) or computed another value (3)"
