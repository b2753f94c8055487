"""Small vectors: an all-pairs gravity step over `qd.math.vec3` ndarrays (one vec3 per body),
lowered to three scalars per component, with `dot`, vector arithmetic and `+=` on vector elements."""
import numpy as np

import qdexplorer.lang as qd

V3 = qd.types.ndarray(dtype=qd.math.vec3, ndim=1)


@qd.kernel
def gravity(pos: V3, vel: V3, acc: V3, dt: qd.f32):
    for i in pos:
        a = qd.math.vec3(0.0)
        for j in range(pos.shape[0]):
            d = pos[j] - pos[i]
            r2 = d.dot(d) + 0.01
            a += d / (r2 * qd.sqrt(r2))
        acc[i] = a
    for i in pos:
        vel[i] += acc[i] * dt
        pos[i] += vel[i] * dt


def _check(before, after):
    p, v, dt = before["pos"].astype(np.float64), before["vel"].astype(np.float64), before["dt"]
    d = p[None, :, :] - p[:, None, :]
    r2 = (d * d).sum(-1) + 0.01
    acc = (d / (r2 * np.sqrt(r2))[..., None]).sum(1)
    vel = v + acc * dt
    np.testing.assert_allclose(after["acc"], acc, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(after["pos"], p + vel * dt, rtol=1e-4, atol=1e-4)


@qd.workload(gravity, check=_check)
def nbody_1k(rng):
    n = 1024
    return dict(pos=rng.standard_normal((n, 3), dtype=np.float32), vel=np.zeros((n, 3), np.float32),
                acc=np.zeros((n, 3), np.float32), dt=0.01)
