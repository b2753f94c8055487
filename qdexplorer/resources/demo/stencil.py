"""A 2D Jacobi stencil over qd.ndrange: an interior task and a boundary task."""
import numpy as np

import qdexplorer.lang as qd


@qd.kernel
def jacobi(u: qd.types.ndarray(dtype=qd.f32, ndim=2), out: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for i, j in qd.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    qd.loop_config(name="boundary")
    for i, j in qd.ndrange(u.shape[0], u.shape[1]):
        if i == 0 or j == 0 or i == u.shape[0] - 1 or j == u.shape[1] - 1:
            out[i, j] = u[i, j]


def _check(before, after):
    u = before["u"]
    ref = u.copy()
    ref[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    np.testing.assert_allclose(after["out"], ref, rtol=1e-6, atol=1e-6)


@qd.workload(jacobi, check=_check)
def jacobi_512(rng):
    u = rng.standard_normal((512, 384), dtype=np.float32)
    return dict(u=u, out=np.zeros_like(u))
