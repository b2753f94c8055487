"""Fields and templates: 1D heat diffusion between two `qd.field`s passed as `qd.template()`
arguments, with the diffusion rate as a compile-time template value and the total heat as the
kernel's return value (kept in a kernel-scope local between tasks)."""
import numpy as np

import qdexplorer.lang as qd

N = 1 << 16
temp = qd.field(qd.f32, shape=(N,), name="temp")
temp_next = qd.field(qd.f32, shape=(N,), name="temp_next")


@qd.kernel
def diffuse(src: qd.template(), dst: qd.template(), rate: qd.template()) -> qd.f32:
    for i in src:
        left = src[max(i - 1, 0)]
        right = src[min(i + 1, src.shape[0] - 1)]
        dst[i] = src[i] + rate * (left + right - 2.0 * src[i])
    total = 0.0
    for i in dst:
        total += dst[i]
    return total


def _reference(src, rate):
    padded = np.concatenate([src[:1], src, src[-1:]])
    return src + rate * (padded[:-2] + padded[2:] - 2 * src)


def _check(before, after):
    ref = _reference(before["src"], before["rate"])
    np.testing.assert_allclose(after["dst"], ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after["ret__"][0], ref.sum(dtype=np.float64), rtol=1e-3)


@qd.workload(diffuse, check=_check)
def heat_64k(rng):
    temp.from_numpy(rng.random(N, dtype=np.float32))
    return dict(src=temp, dst=temp_next, rate=0.25)
