"""Linear Kalman filter for a constant-velocity model with the continuous white-noise
acceleration process noise Q (Labbe, Kalman and Bayesian Filters in Python): predict,
innovation covariance, gain, update, one Python iteration per measurement. The loop count
is the number of measurements, scaled per size by N[size] / N["small"]."""
import numpy as np

NAME = "kalman_cv"
LOOPS = {"T": 300}
N = {"small": 300, "medium": 3600}


def make_inputs(size, loop_scale=1):
    n = LOOPS["T"] * loop_scale * N[size] // N["small"]
    tt = np.arange(n) * 0.1
    zs = 0.5 * tt**2 + np.random.default_rng(36).normal(0, 3, n)
    return zs, 0.1, 0.5, 9.0


def run(zs, dt, q, r):
    F = np.array([[1, dt], [0, 1]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    R = np.array([[r]])
    x = np.zeros((2, 1))
    P = np.eye(2) * 500.0
    xs = np.zeros((len(zs), 2))
    for k, z in enumerate(zs):
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        x = x + K @ (z - H @ x)
        P = (np.eye(2) - K @ H) @ P
        xs[k] = x.ravel()
    return xs, P
