"""The one timing loop the benchmark scripts share."""
import statistics
import time


def median_of(fn, reps):
    """Median wall time of reps calls of fn()."""
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)
