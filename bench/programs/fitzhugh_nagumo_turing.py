"""Turing patterns of the FitzHugh-Nagumo reaction-diffusion system, after the recipe in
Cyrille Rossant's IPython Interactive Computing and Visualization Cookbook: explicit Euler
with a slice-based 5-point Laplacian and Neumann (copy the neighbour) edges, over the time
T = 0.9 split into n steps. The step count grows with the grid as (size/64)^2 so that
dt/dx^2 stays what it is at 64^2 (the explicit scheme's stability limit)."""
import numpy as np

NAME = "fitzhugh_nagumo_turing"
LOOPS = {"n": 300}
N = {"small": 64, "medium": 128}


def make_inputs(size, loop_scale=1):
    size_ = N[size]
    return size_, LOOPS["n"] * loop_scale * (size_ // 64) ** 2


def run(size, n):
    """Rossant's IPython cookbook Turing pattern."""
    a = 2.8e-4
    b = 5e-3
    tau = .1
    k = -.005
    dx = 2. / size
    T = 0.9
    dt = T / n
    rng = np.random.default_rng(0)
    U = rng.random((size, size))
    V = rng.random((size, size))

    def laplacian(Z):
        Ztop = Z[0:-2, 1:-1]
        Zleft = Z[1:-1, 0:-2]
        Zbottom = Z[2:, 1:-1]
        Zright = Z[1:-1, 2:]
        Zcenter = Z[1:-1, 1:-1]
        return (Ztop + Zleft + Zbottom + Zright - 4 * Zcenter) / dx**2

    for i in range(n):
        deltaU = laplacian(U)
        deltaV = laplacian(V)
        Uc = U[1:-1, 1:-1]
        Vc = V[1:-1, 1:-1]
        U[1:-1, 1:-1], V[1:-1, 1:-1] = \
            Uc + dt * (a * deltaU + Uc - Uc**3 - Vc + k), \
            Vc + dt * (b * deltaV + Uc - Vc) / tau
        for Z in (U, V):
            Z[0, :] = Z[1, :]
            Z[-1, :] = Z[-2, :]
            Z[:, 0] = Z[:, 1]
            Z[:, -1] = Z[:, -2]
    return U, V
