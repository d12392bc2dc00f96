"""Sieve of Eratosthenes: for every p <= sqrt(n) still marked prime, cross out p^2, p^2 + p, ...
with a strided slice assignment. Returns the primes."""
import numpy as np

NAME = "sieve"
LOOPS = {}
N = {"small": 100_000, "medium": 10_000_000}


def make_inputs(size, loop_scale=1):
    return (N[size],)


def run(n):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if is_prime[p]:
            is_prime[p * p::p] = False
    return np.nonzero(is_prime)[0]
