"""Iterated bilateral-like smoothing of a noisy image: each pixel becomes the
weighted mean over its 5x5 neighbourhood with weights
w = exp(-d^2/(2 s_s^2)) * exp(-(I_q - I_p)^2/(2 s_r^2)) computed from shifted slices.
Iterate until the mean absolute update drops below tol (or a max count)."""
import numpy as np

NAME = "bilateral_iter"
LOOPS = {"max_iter": 8}
N = {"small": 64, "medium": 1_200}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:n, 0:n] / n
    clean = np.where(x + 0.3 * np.sin(6 * y) > 0.5, 0.8, 0.2)
    noisy = (clean + rng.normal(0, 0.08, (n, n))).astype(np.float32)
    return (noisy, 2, 1.5, 0.15, 1e-3, int(LOOPS["max_iter"] * loop_scale))


def run(img, radius, sigma_s, sigma_r, tol, max_iter):
    u = img.copy()
    n, m = u.shape
    hist = []
    for it in range(max_iter):
        p = np.pad(u, radius, mode="reflect")
        num = np.zeros_like(u)
        den = np.zeros_like(u)
        for di in range(-radius, radius + 1):
            for dj in range(-radius, radius + 1):
                q = p[radius + di:radius + di + n, radius + dj:radius + dj + m]
                ws = np.exp(-(di * di + dj * dj) / (2 * sigma_s ** 2))
                w = ws * np.exp(-((q - u) ** 2) / (2 * sigma_r ** 2))
                num += w * q
                den += w
        new = num / den
        change = float(np.mean(np.abs(new - u)))
        hist.append(change)
        u = new
        if change < tol:
            break
    return u, np.array(hist)
