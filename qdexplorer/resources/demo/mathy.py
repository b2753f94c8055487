"""Math-heavy and compute-bound kernels: transcendental mix and a naive matmul."""
import numpy as np

import qdexplorer.lang as qd


@qd.kernel
def math_mix(x: qd.types.ndarray(dtype=qd.f32, ndim=1), out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = (qd.sin(v) * qd.cos(v) + qd.exp(-v * v) + qd.log(1.0 + v * v) + qd.sqrt(qd.abs(v))
                  + qd.tanh(v) + qd.atan2(v, 1.5) + qd.pow(qd.abs(v) + 1.0, 0.5) + qd.floor(v))


@qd.kernel
def matmul(a: qd.types.ndarray(dtype=qd.f32, ndim=2), b: qd.types.ndarray(dtype=qd.f32, ndim=2),
           c: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for i, j in qd.ndrange(a.shape[0], b.shape[1]):
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[i, k] * b[k, j]
        c[i, j] = acc


def _math_ref(v):
    v = v.astype(np.float64)
    return (np.sin(v) * np.cos(v) + np.exp(-v * v) + np.log(1 + v * v) + np.sqrt(np.abs(v)) + np.tanh(v)
            + np.arctan2(v, 1.5) + np.sqrt(np.abs(v) + 1) + np.floor(v))


@qd.workload(math_mix, check=lambda b, a: np.testing.assert_allclose(a["out"], _math_ref(b["x"]), rtol=1e-5, atol=1e-5))
def math_mix_256k(rng):
    n = 1 << 18
    return dict(x=rng.uniform(-4, 4, n).astype(np.float32), out=np.zeros(n, np.float32))


@qd.workload(matmul, check=lambda b, a: np.testing.assert_allclose(a["c"], b["a"] @ b["b"], rtol=1e-4, atol=1e-4))
def matmul_256(rng):
    return dict(a=rng.standard_normal((256, 192), dtype=np.float32),
                b=rng.standard_normal((192, 128), dtype=np.float32), c=np.zeros((256, 128), np.float32))
