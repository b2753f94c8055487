"""Monte Carlo with `qd.random` / `qd.randn`: estimating π, Brownian walkers, a jittered grid.

Shows: `qd.random()` (f32 on [0, 1)), `qd.random(qd.f64)`, `qd.random(qd.i32)`, `qd.randn()`,
draws inside an inner loop and a `@qd.func`, `qd.init(random_seed=...)`, and atomic tallies.
Random numbers differ from Quadrants' (its exact sequence is not part of its contract), so the
results are statistics, compared with Quadrants' within `TOLERANCE` (absolute; about five
standard deviations of the difference of two estimates).
"""
import numpy as np

import quadrants as qd

N_THROWS = 1 << 20
N_WALKERS = 4096
STEPS = 200
GRID = 64

qd.init(arch=qd.cpu, random_seed=42)

inside = qd.field(qd.i32, shape=())
pos = qd.Vector.field(2, dtype=qd.f32, shape=N_WALKERS)
bits = qd.field(qd.i32, shape=32)
jitter = qd.field(qd.f64, shape=(GRID, GRID))

# five standard deviations of the difference of two independent estimates
TOLERANCE = {"pi": 0.012, "msd": 0.22, "mean_x": 0.12, "kurtosis": 0.55, "bit_freq": 0.007, "jitter_mean": 0.032,
             "jitter_var": 0.0083}


@qd.kernel
def throw():
    for i in range(N_THROWS):
        x = qd.random()
        y = qd.random()
        if x * x + y * y < 1.0:
            inside[None] += 1


@qd.func
def kick(sigma: qd.f32):
    return qd.math.vec2(qd.randn(), qd.randn()) * sigma


@qd.kernel
def walk(sigma: qd.f32):
    for w in pos:
        p = pos[w]
        for _ in range(STEPS):
            p += kick(sigma)
        pos[w] = p


@qd.kernel
def count_bits():
    for i in range(N_THROWS // 4):
        v = qd.random(qd.i32)
        for b in qd.static(range(32)):
            if (v >> b) & 1:
                bits[b] += 1


@qd.kernel
def jitter_grid():
    for i, j in jitter:
        jitter[i, j] = i + j + qd.random(qd.f64) - 0.5


def main():
    throw()
    walk(0.1)
    count_bits()
    jitter_grid()
    p = pos.to_numpy().astype(np.float64)
    r2 = (p ** 2).sum(1)
    j = jitter.to_numpy()
    base = np.add.outer(np.arange(GRID), np.arange(GRID))
    return {"pi": np.float64(4.0 * inside[None] / N_THROWS),
            "msd": np.float64(r2.mean() / (STEPS * 0.1 ** 2)),   # 2 for a 2-D walk of unit-variance kicks
            "mean_x": np.float64(p[:, 0].mean() / np.sqrt(STEPS * 0.1 ** 2)),   # 0, sd 1/64
            "kurtosis": np.float64((p[:, 0] ** 4).mean() / (p[:, 0] ** 2).mean() ** 2),
            "bit_freq": (bits.to_numpy() / (N_THROWS // 4)).astype(np.float64),
            "jitter_mean": np.float64((j - base).mean()),
            "jitter_var": np.float64((j - base).var())}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
