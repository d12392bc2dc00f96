"""Reynolds boids in a periodic 2-D box: pairwise offsets by broadcasting with
minimum-image wrap, neighbour masks by radius, cohesion/alignment/separation rules as
masked sums, speed clamped to [vmin, vmax], positions wrapped with %. Returns final
state and the polarisation order parameter per step."""
import numpy as np

NAME = "boids"
LOOPS = {"steps": 15}
N = {"small": 100, "medium": 2000}


def make_inputs(size, loop_scale=1):
    n = N[size]
    rng = np.random.default_rng(23)
    pos = rng.random((n, 2)) * 10.0
    ang = rng.uniform(0, 2 * np.pi, n)
    vel = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    return (pos, vel, 10.0, int(LOOPS["steps"] * loop_scale))


def run(pos, vel, L, steps):
    pos = pos.copy()
    vel = vel.copy()
    R, Rsep = 1.0, 0.3
    dt = 0.1
    vmin, vmax = 0.5, 2.0
    order = np.zeros(steps)
    for s in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        d -= L * np.round(d / L)
        dist = np.sqrt((d ** 2).sum(axis=2))
        nb = (dist < R) & (dist > 0)
        cnt = nb.sum(axis=1)
        has = cnt > 0
        cnt_safe = np.maximum(cnt, 1)[:, None]
        coh = (d * nb[:, :, None]).sum(axis=1) / cnt_safe
        ali = (vel[None, :, :] * nb[:, :, None]).sum(axis=1) / cnt_safe - vel
        close = (dist < Rsep) & (dist > 0)
        sep = -(d * close[:, :, None] / (dist[:, :, None] ** 2 + 1e-9)).sum(axis=1)
        acc = np.where(has[:, None], 0.05 * coh + 0.1 * ali, 0.0) + 0.02 * sep
        vel += acc
        speed = np.linalg.norm(vel, axis=1)
        vel *= (np.clip(speed, vmin, vmax) / speed)[:, None]
        pos = (pos + dt * vel) % L
        order[s] = np.linalg.norm(vel.sum(axis=0)) / np.linalg.norm(vel, axis=1).sum()
    return pos, vel, order
