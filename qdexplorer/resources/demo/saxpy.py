"""Bandwidth-bound kernels: saxpy and a plain copy (one range_for task each)."""
import numpy as np

import qdexplorer.lang as qd


@qd.kernel
def saxpy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), y: qd.types.ndarray(dtype=qd.f32, ndim=1), a: qd.f32):
    for i in range(x.shape[0]):
        y[i] = a * x[i] + y[i]


@qd.kernel
def copy(src: qd.types.NDArray[qd.f32, 1], dst: qd.types.NDArray[qd.f32, 1]):
    for i in range(src.shape[0]):
        dst[i] = src[i]


def _check_saxpy(before, after):
    # against the exact result, within what float32 allows: a*x + y rounded twice (mul, then add), or
    # once where fast math fuses them into an fma on CUDA; a relative test of the result alone fails
    # where the two terms nearly cancel, since the roundings scale with the terms, not the result
    ax = np.float64(before["a"]) * before["x"].astype(np.float64)
    exact = ax + before["y"]
    err = np.abs(after["y"] - exact)
    bound = 2.0 ** -22 * (np.abs(ax) + np.abs(before["y"]))
    bad = np.flatnonzero(err > bound)
    assert bad.size == 0, (f"saxpy: {bad.size} of {err.size} elements off by more than float32 rounding, "
                           f"first at {bad[0] if bad.size else -1}")


@qd.workload(saxpy, check=_check_saxpy)
def saxpy_1m(rng):
    n = 1 << 20
    return dict(x=rng.standard_normal(n, dtype=np.float32), y=rng.standard_normal(n, dtype=np.float32), a=2.5)


@qd.workload(copy, check=lambda before, after: np.testing.assert_array_equal(after["dst"], before["src"]))
def copy_1m(rng):
    n = 1 << 20
    return dict(src=rng.standard_normal(n, dtype=np.float32), dst=np.zeros(n, np.float32))
