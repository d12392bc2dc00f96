"""Number of ways to make each amount 0..A from unlimited coins (order ignored),
modulo 1e9+7. For each coin c the classic update ways[x] += ways[x-c] (ascending x)
is a prefix sum along each residue class x = r (mod c), so it is done with
np.cumsum on strided slices ways[r::c]. Also computes the minimum coin count by a
vectorized scan over amounts."""
import numpy as np

NAME = "coin_change_ways"
LOOPS = {}
N = {"small": 2_000, "medium": 200_000}

MOD = 1_000_000_007


def make_inputs(size, loop_scale=1):
    A = N[size]
    coins = np.array([1, 2, 5, 10, 20, 50, 100, 200, 7, 13], dtype=np.int64)
    return (coins, A)


def run(coins, A):
    ways = np.zeros(A + 1, dtype=np.int64)
    ways[0] = 1
    for c in coins:
        for r in range(min(c, A + 1)):
            ways[r::c] = np.cumsum(ways[r::c]) % MOD
    # minimum number of coins, one amount at a time
    INF = np.iinfo(np.int32).max // 2
    mincoins = np.full(A + 1, INF, dtype=np.int32)
    mincoins[0] = 0
    limit = min(A, 400)
    for x in range(1, limit + 1):
        ok = coins[coins <= x]
        if ok.size:
            mincoins[x] = mincoins[x - ok].min() + 1
    return ways, mincoins[:limit + 1]
