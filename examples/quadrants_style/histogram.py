"""A histogram with atomics, then its cumulative distribution with a serialized loop.

Shows: `qd.atomic_add` returning the old value, `+=` on an ndarray element in a parallel loop
(atomic, Quadrants' rule), `qd.floor(x, qd.i32)` and `qd.cast`, `qd.atomic_min/max` into a
0-d field, `qd.loop_config(serialize=True)` for a running sum, kernel-scope locals used across
loops (`total` written by one loop and read by the next), and `qd.types.NDArray[...]` annotations.
"""
import numpy as np

import quadrants as qd

BINS = 16

qd.init(arch=qd.cpu)

lo = qd.field(qd.f32, shape=())
hi = qd.field(qd.f32, shape=())


@qd.kernel
def value_range(x: qd.types.NDArray[qd.f32, 1]):
    lo[None] = x[0]
    hi[None] = x[0]
    for i in range(x.shape[0]):
        qd.atomic_min(lo[None], x[i])
        qd.atomic_max(hi[None], x[i])


@qd.kernel
def histogram(x: qd.types.NDArray[qd.f32, 1], hist: qd.types.NDArray[qd.i32, 1],
              first_slot: qd.types.NDArray[qd.i32, 1]):
    width = (hi[None] - lo[None]) / BINS
    for i in range(x.shape[0]):
        b = qd.floor((x[i] - lo[None]) / width, qd.i32)
        b = qd.min(qd.max(b, 0), BINS - 1)
        old = qd.atomic_add(hist[b], 1)
        if old == 0:
            first_slot[b] = i


@qd.kernel
def cdf(hist: qd.types.NDArray[qd.i32, 1], out: qd.types.NDArray[qd.f32, 1]) -> qd.i32:
    total = 0
    for b in range(BINS):
        total += hist[b]
    running = 0
    qd.loop_config(serialize=True)
    for b in range(BINS):
        running += hist[b]
        out[b] = qd.cast(running, qd.f32) / total
    return total


@qd.kernel
def weighted_counts(x: qd.types.NDArray[qd.f32, 1], w: qd.types.NDArray[qd.f32, 1],
                    acc: qd.types.NDArray[qd.f32, 1]):
    width = (hi[None] - lo[None]) / BINS
    for i in x:
        b = int((x[i] - lo[None]) / width)
        if b >= BINS:
            b = BINS - 1
        acc[b] += w[i]


def main():
    rng = np.random.default_rng(3)
    x = rng.normal(0.0, 1.0, 5000).astype(np.float32)
    w = rng.uniform(0.0, 1.0, 5000).astype(np.float32)
    value_range(x)
    hist = np.zeros(BINS, np.int32)
    first = np.full(BINS, -1, np.int32)
    histogram(x, hist, first)
    out = np.zeros(BINS, np.float32)
    total = cdf(hist, out)
    acc = np.zeros(BINS, np.float32)
    weighted_counts(x, w, acc)
    has_first = (first >= 0).astype(np.int32)  # which i wins is a race; that one exists is not
    return {"lo": np.float32(lo[None]), "hi": np.float32(hi[None]), "hist": hist, "cdf": out,
            "total": np.int32(total), "has_first": has_first, "weighted": acc}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
