"""2-D heat equation with Jacobi sweeps on two fields, in the style of Quadrants' field docs.

Shows: dense 2-D fields, `qd.ndrange` over the interior, fields passed as `qd.template()` so one
kernel serves both ping-pong directions, a 0-d field reduction (`res[None] += ...`), a kernel
that returns a value, and `from_numpy`/`to_numpy`/`fill` from Python.
"""
import numpy as np

import quadrants as qd

N = 48
ALPHA = 0.2

qd.init(arch=qd.cpu)

u = qd.field(qd.f32, shape=(N, N))
v = qd.field(qd.f32, shape=(N, N))
res = qd.field(qd.f32, shape=())


@qd.kernel
def init_hot_spot(f: qd.template(), cx: qd.i32, cy: qd.i32, r: qd.i32):
    for i, j in f:
        d2 = (i - cx) ** 2 + (j - cy) ** 2
        f[i, j] = 100.0 if d2 <= r * r else 0.0


@qd.kernel
def sweep(src: qd.template(), dst: qd.template(), alpha: qd.f32):
    for i, j in qd.ndrange((1, N - 1), (1, N - 1)):
        lap = src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * src[i, j]
        dst[i, j] = src[i, j] + alpha * lap


@qd.kernel
def residual(a: qd.template(), b: qd.template()):
    res[None] = 0.0
    for i, j in a:
        res[None] += qd.abs(a[i, j] - b[i, j])


@qd.kernel
def total_heat(f: qd.template()) -> qd.f32:
    s = 0.0
    for i, j in f:
        s += f[i, j]
    return s


def main():
    init_hot_spot(u, N // 2, N // 3, 6)
    v.from_numpy(u.to_numpy())
    history = []
    for it in range(40):
        if it % 2 == 0:
            sweep(u, v, ALPHA)
        else:
            sweep(v, u, ALPHA)
        if it % 10 == 9:
            residual(u, v)
            history.append(float(res[None]))
    heat = total_heat(u)
    return {"u": u.to_numpy(), "residuals": np.array(history, np.float32),
            "heat": np.float32(heat), "corner": np.float32(u[1, 1]), "centre": np.float32(u[N // 2, N // 3])}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
