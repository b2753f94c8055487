"""Debugging a kernel: `print` inside kernels and `assert` under `qd.init(debug=True)`.

Shows: `print` of strings, ints, floats, vectors and f-strings from serial code (one thread, so
the output order is fixed), a bounds assertion with a message that fires for bad input and is
caught as `AssertionError` (Quadrants raises its `QuadrantsAssertionError`, an AssertionError),
and a `@qd.func` with a default argument.
"""
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu, debug=True)


@qd.func
def safe_div(a: qd.f32, b: qd.f32, fallback: qd.f32 = 0.0) -> qd.f32:
    r = fallback
    if b != 0.0:
        r = a / b
    return r


@qd.kernel
def report(x: qd.types.ndarray(dtype=qd.f32, ndim=1), k: qd.i32):
    n = x.shape[0]
    print("n =", n, "k =", k)
    s = 0.0
    for j in range(n):
        s += x[j]
    print("sum", s)
    v = qd.math.vec2(x[0], x[n - 1])
    print("ends", v)
    print(f"ratio={safe_div(x[0], x[1])} fallback={safe_div(1.0, 0.0, -1.0)}")


@qd.kernel
def gather(x: qd.types.ndarray(dtype=qd.f32, ndim=1), idx: qd.types.ndarray(dtype=qd.i32, ndim=1),
           out: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(idx.shape[0]):
        j = idx[i]
        assert 0 <= j < x.shape[0], "index out of range"
        out[i] = x[j] * 2


def main():
    x = np.array([1.5, 3.0, -2.0, 4.25], np.float32)
    report(x, 7)
    out = np.zeros(3, np.float32)
    gather(x, np.array([3, 0, 1], np.int32), out)
    caught = 0
    try:
        gather(x, np.array([0, 9, 1], np.int32), np.zeros(3, np.float32))
    except AssertionError as e:
        caught = int("index out of range" in str(e))
    return {"out": out, "caught": np.int32(caught)}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
