"""Kernel-scope locals across loops, a serialized prefix sum, and loops with early exits.

Shows: a local computed by one top-level loop and used by the next (`total`, `peak`), a
`qd.loop_config(serialize=True)` running sum, `while` with `break`/`continue` inside a parallel
loop (a Collatz count and an LCG as in Quadrants' getting-started guide), integer `//` and `%`
with Python's floor semantics on negative numbers, `qd.i64` accumulation, and chained
assignment.
"""
import numpy as np

import quadrants as qd

N = 200

qd.init(arch=qd.cpu)


@qd.kernel
def normalise_and_scan(x: qd.types.ndarray(dtype=qd.f32, ndim=1), prefix: qd.types.ndarray(dtype=qd.f32, ndim=1)) -> qd.f32:
    total = 0.0
    peak = -1e30
    for i in range(x.shape[0]):
        total += x[i]
        qd.atomic_max(peak, x[i])
    running = 0.0
    qd.loop_config(serialize=True)
    for i in range(x.shape[0]):
        running += x[i] / total
        prefix[i] = running
    return peak / total


@qd.kernel
def collatz_steps(start: qd.types.ndarray(dtype=qd.i64, ndim=1), steps: qd.types.ndarray(dtype=qd.i32, ndim=1)) -> qd.i64:
    longest = qd.i64(0)
    for i in range(start.shape[0]):
        n = start[i]
        k = 0
        while True:
            if n == 1:
                break
            k += 1
            if n % 2 == 0:
                n = n // 2
                continue
            n = 3 * n + 1
        steps[i] = k
        qd.atomic_max(longest, qd.i64(k))
    return longest


@qd.kernel
def lcg(a: qd.types.NDArray[qd.i32, 1], its: int):
    for i in range(a.shape[0]):
        x = a[i]
        for j in range(its):
            x = (1664525 * x + 1013904223) % 2147483647
        a[i] = x


@qd.kernel
def floor_ops(v: qd.types.ndarray(dtype=qd.i32, ndim=1), q: qd.types.ndarray(dtype=qd.i32, ndim=1),
              r: qd.types.ndarray(dtype=qd.i32, ndim=1), fm: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(v.shape[0]):
        q[i] = r[i] = 0
        q[i] = v[i] // 7
        r[i] = v[i] % 7
        fm[i] = (v[i] * 0.5) % 3.0


def main():
    rng = np.random.default_rng(5)
    x = rng.uniform(0.0, 2.0, N).astype(np.float32)
    prefix = np.zeros(N, np.float32)
    ratio = normalise_and_scan(x, prefix)
    start = np.arange(1, 65, dtype=np.int64)
    steps = np.zeros(64, np.int32)
    longest = collatz_steps(start, steps)
    a = np.arange(16, dtype=np.int32)
    lcg(a, 100)
    v = np.arange(-20, 21, dtype=np.int32)
    q, r, fm = np.zeros_like(v), np.zeros_like(v), np.zeros(v.shape, np.float32)
    floor_ops(v, q, r, fm)
    return {"prefix": prefix, "ratio": np.float32(ratio), "steps": steps, "longest": np.int64(longest),
            "lcg": a, "q": q, "r": r, "fm": fm}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
