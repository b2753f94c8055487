"""A multi-task particle step: serial reset, integrate, bounce, atomic energy sum, serial mean.

Five offloaded tasks from one kernel: the top-level statements before the first loop form a
serial task, each loop is a range_for task, and the trailing statement is another serial task.
"""
import numpy as np

import qdexplorer.lang as qd

GRAVITY = 9.8
RESTITUTION = 0.9


@qd.func
def kinetic(vx: qd.f32, vy: qd.f32) -> qd.f32:
    return 0.5 * (vx * vx + vy * vy)


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
            vel[i, 1] = -vel[i, 1] * RESTITUTION
    for i in range(pos.shape[0]):
        stats[0] += kinetic(vel[i, 0], vel[i, 1])
        qd.atomic_max(stats[1], pos[i, 1])
    stats[2] = stats[0] / pos.shape[0]


def reference(pos, vel, dt):
    pos, vel = pos.copy(), vel.copy()
    vel[:, 1] -= np.float32(GRAVITY) * np.float32(dt)
    pos += vel * np.float32(dt)
    low = pos[:, 1] < 0
    pos[low, 1] = -pos[low, 1]
    vel[low, 1] = -vel[low, 1] * np.float32(RESTITUTION)
    e = (0.5 * (vel[:, 0].astype(np.float64) ** 2 + vel[:, 1].astype(np.float64) ** 2)).sum()
    return pos, vel, e, pos[:, 1].max()


def _check(before, after):
    pos, vel, e, top = reference(before["pos"], before["vel"], before["dt"])
    np.testing.assert_allclose(after["pos"], pos, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after["vel"], vel, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after["stats"][0], e, rtol=1e-3)
    np.testing.assert_allclose(after["stats"][1], top, rtol=1e-6)
    np.testing.assert_allclose(after["stats"][2], e / len(pos), rtol=1e-3)


@qd.workload(particle_step, check=_check)
def particles_64k(rng):
    n = 1 << 16
    pos = rng.uniform(0.0, 1.0, (n, 2)).astype(np.float32)
    vel = rng.standard_normal((n, 2), dtype=np.float32)
    return dict(pos=pos, vel=vel, stats=np.zeros(3, np.float32), dt=0.01)
