"""Two reductions: a shared-memory block tree (CUDA) and a plain atomic one (any backend)."""
import numpy as np

import qdexplorer.lang as qd

BLOCK = 256


@qd.kernel
def block_sum(x: qd.types.ndarray(dtype=qd.f32, ndim=1), partial: qd.types.ndarray(dtype=qd.f32, ndim=1),
              total: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    total[0] = 0.0
    qd.loop_config(block_dim=BLOCK)
    for i in range(x.shape[0]):
        tid = qd.simt.block.thread_idx()
        pad = qd.simt.block.SharedArray((BLOCK,), qd.f32)
        pad[tid] = x[i]
        qd.simt.block.sync()
        stride = BLOCK // 2
        while stride > 0:
            if tid < stride:
                pad[tid] = pad[tid] + pad[tid + stride]
            qd.simt.block.sync()
            stride //= 2
        if tid == 0:
            partial[i // BLOCK] = pad[0]
            total[0] += pad[0]


@qd.kernel
def atomic_sum(x: qd.types.ndarray(dtype=qd.f32, ndim=1), total: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    total[0] = 0.0
    for i in range(x.shape[0]):
        total[0] += x[i]


def _check_block(before, after):
    x = before["x"].astype(np.float64)
    np.testing.assert_allclose(after["partial"], x.reshape(-1, BLOCK).sum(1), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(after["total"][0], x.sum(), rtol=1e-4, atol=1e-2)


@qd.workload(block_sum, check=_check_block)
def block_sum_1m(rng):
    n = 1 << 20
    return dict(x=rng.uniform(-1, 1, n).astype(np.float32), partial=np.zeros(n // BLOCK, np.float32),
                total=np.zeros(1, np.float32))


@qd.workload(atomic_sum, check=lambda b, a: np.testing.assert_allclose(
    a["total"][0], b["x"].astype(np.float64).sum(), rtol=1e-4, atol=1e-2))
def atomic_sum_256k(rng):
    return dict(x=rng.uniform(-1, 1, 1 << 18).astype(np.float32), total=np.zeros(1, np.float32))
