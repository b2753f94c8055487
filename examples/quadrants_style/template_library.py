"""A small kernel library specialised with `qd.template()` and `qd.static`.

Shows: template arguments that are fields, ndarrays and compile-time values (an int, a float, a
tuple of weights, a flag), one specialisation per distinct value, `qd.static(range(...))` and
`qd.static(tuple)` unrolling, `if qd.static(flag):`, a generic `@qd.func` used with several
dtypes, and fields of i32, f32 and f64.
"""
import numpy as np

import quadrants as qd

N = 64

qd.init(arch=qd.cpu)

fa = qd.field(qd.f32, shape=N)
fb = qd.field(qd.f32, shape=N)
fd = qd.field(qd.f64, shape=N)
fi = qd.field(qd.i32, shape=N)


@qd.func
def clamp_to(v, lo, hi):
    return qd.min(qd.max(v, lo), hi)


@qd.kernel
def fill_ramp(dst: qd.template(), scale: qd.template()):
    for i in dst:
        dst[i] = i * scale


@qd.kernel
def axpy(dst: qd.template(), src: qd.template(), a: qd.template(), clamp: qd.template()):
    for i in dst:
        v = dst[i] + a * src[i]
        if qd.static(clamp):
            v = clamp_to(v, 0, 100)
        dst[i] = v


@qd.kernel
def smooth(dst: qd.template(), src: qd.template(), weights: qd.template()):
    half = qd.static(len(weights) // 2)
    for i in range(half, N - half):
        acc = 0.0
        for k in qd.static(range(len(weights))):
            acc += weights[k] * src[i + k - half]
        dst[i] = acc


@qd.kernel
def power_sum(src: qd.template(), p: qd.template()) -> qd.f64:
    total = 0.0
    for i in src:
        term = qd.cast(1.0, qd.f64)
        for _ in qd.static(range(p)):
            term *= src[i]
        total += term
    return total


@qd.kernel
def moments(x: qd.types.ndarray(), out: qd.types.ndarray()):
    for i in range(x.shape[0]):
        for k, w in qd.static(enumerate((1.0, 2.0, 3.0))):
            out[k] += w * x[i] ** (k + 1)


def main():
    fill_ramp(fa, 0.5)
    fill_ramp(fb, 2)
    fill_ramp(fi, 3)
    fill_ramp(fd, 0.25)
    axpy(fa, fb, 2.0, False)
    axpy(fi, fi, 1, True)
    smooth(fb, fa, (0.25, 0.5, 0.25))
    smooth(fd, fd, (1.0,))
    p2 = power_sum(fd, 2)
    p3 = power_sum(fa, 3)
    x = (np.arange(10, dtype=np.float32) - 4.5) / 4
    out = np.zeros(3, np.float32)
    moments(x, out)
    return {"fa": fa.to_numpy(), "fb": fb.to_numpy(), "fd": fd.to_numpy(), "fi": fi.to_numpy(),
            "p2": np.float64(p2), "p3": np.float64(p3), "moments": out}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
