"""Demo-style kernels as a Quadrants program; it runs unchanged under qdexplorer.lang too.

Usage: python demo_kernels.py [N] [REPEAT]
"""
import sys

import numpy as np
import quadrants as qd

GRAVITY = 9.8


@qd.func
def kinetic(vx: qd.f32, vy: qd.f32) -> qd.f32:
    return 0.5 * (vx * vx + vy * vy)


@qd.kernel
def saxpy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1), a: qd.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def particle_step(pos: qd.types.ndarray(dtype=qd.f32, ndim=2), vel: qd.types.ndarray(dtype=qd.f32, ndim=2),
                  stats: qd.types.ndarray(dtype=qd.f32, ndim=1), dt: qd.f32):
    stats[0] = 0.0
    stats[1] = -1.0e30
    for i in range(pos.shape[0]):
        vel[i, 1] = vel[i, 1] - GRAVITY * dt
        pos[i, 0] = pos[i, 0] + vel[i, 0] * dt
        pos[i, 1] = pos[i, 1] + vel[i, 1] * dt
    qd.loop_config(name="bounce")
    for i in range(pos.shape[0]):
        if pos[i, 1] < 0.0:
            pos[i, 1] = -pos[i, 1]
            vel[i, 1] = -vel[i, 1] * 0.9
    for i in range(pos.shape[0]):
        stats[0] += kinetic(vel[i, 0], vel[i, 1])
        qd.atomic_max(stats[1], pos[i, 1])
    stats[2] = stats[0] / pos.shape[0]


@qd.kernel
def atomic_sum(x: qd.types.ndarray(dtype=qd.f32, ndim=1), total: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    total[0] = 0.0
    for i in range(x.shape[0]):
        total[0] += x[i]


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    qd.init(arch=qd.cpu)
    rng = np.random.default_rng(0)
    x = np.ones(n, np.float32)
    y = np.zeros(n, np.float32)
    pos = rng.uniform(0.0, 1.0, (n, 2)).astype(np.float32)
    vel = rng.standard_normal((n, 2), dtype=np.float32)
    stats = np.zeros(3, np.float32)
    total = np.zeros(1, np.float32)
    for _ in range(repeat):
        saxpy(x, y, 2.0)
        particle_step(pos, vel, stats, 0.01)
        atomic_sum(x, total)
    print(f"y0={y[0]:g} total={total[0]:g} mean_energy={stats[2]:.4f}")
