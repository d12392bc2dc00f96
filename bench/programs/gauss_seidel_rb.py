"""Red-black Gauss-Seidel for the Poisson problem -lap(u) = f, h = 1/(n-1), u = 0 on the boundary:
u_ij <- (u_{i-1,j} + u_{i+1,j} + u_{i,j-1} + u_{i,j+1} + h^2 f_ij) / 4,
first on the red points (i+j even), then on the black ones with the new red values.
Each color is two strided sub-grids; n must be even."""
import numpy as np

NAME = "gauss_seidel_rb"
LOOPS = {"sweeps": 30}
N = {"small": 256, "medium": 2048}


def make_inputs(size, loop_scale=1):
    n = N[size]
    x = np.linspace(0.0, 1.0, n)
    f = np.sin(np.pi * x)[:, None] * np.sin(2 * np.pi * x)[None, :]
    return np.zeros((n, n)), f, LOOPS["sweeps"] * loop_scale


def run(u, f, sweeps):
    n = u.shape[0]
    h2 = (1.0 / (n - 1)) ** 2
    for _ in range(sweeps):
        for (i, j) in ((1, 1), (2, 2), (1, 2), (2, 1)):  # red sub-grids, then black
            u[i:n - 1:2, j:n - 1:2] = 0.25 * (u[i - 1:n - 2:2, j:n - 1:2] + u[i + 1:n:2, j:n - 1:2]
                                              + u[i:n - 1:2, j - 1:n - 2:2] + u[i:n - 1:2, j + 1:n:2]
                                              + h2 * f[i:n - 1:2, j:n - 1:2])
    return u
