"""Rotating rigid bodies with small matrices: mat3 fields, `@`, cross products, transposes.

Shows: `qd.Matrix.field`, `qd.math.mat3` and `qd.Matrix([[...]])` construction, matrix-vector and
matrix-matrix `@`, `.transpose()`, `.determinant()`, `qd.math.cross`, `.normalized()`, a `@qd.func`
returning a matrix, a kernel returning a vector, and `qd.static` unrolling over axes.
"""
import numpy as np

import quadrants as qd

N = 32

qd.init(arch=qd.cpu)

R = qd.Matrix.field(3, 3, dtype=qd.f32, shape=N)
omega = qd.Vector.field(3, dtype=qd.f32, shape=N)
com = qd.Vector.field(3, dtype=qd.f32, shape=N)


@qd.func
def skew(w):
    return qd.Matrix([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


@qd.func
def orthonormalize(m):
    a = qd.math.vec3(m[0, 0], m[1, 0], m[2, 0]).normalized()
    b = qd.math.vec3(m[0, 1], m[1, 1], m[2, 1])
    b = (b - a.dot(b) * a).normalized()
    c = a.cross(b)
    return qd.math.mat3([[a[0], b[0], c[0]], [a[1], b[1], c[1]], [a[2], b[2], c[2]]])


@qd.kernel
def setup():
    for i in R:
        R[i] = qd.Matrix.identity(qd.f32, 3)
        omega[i] = qd.math.vec3(0.1 * (i % 5), 0.2, -0.05 * (i % 3))
        com[i] = qd.math.vec3(i, 0.5 * i, 1.0)


@qd.kernel
def integrate(dt: qd.f32):
    for i in R:
        Rn = R[i] + dt * (skew(omega[i]) @ R[i])
        R[i] = orthonormalize(Rn)


@qd.kernel
def world_point(local: qd.types.ndarray(dtype=qd.math.vec3, ndim=1), out: qd.types.ndarray(dtype=qd.math.vec3, ndim=1)):
    for i in range(N):
        out[i] = R[i] @ local[i] + com[i]


@qd.kernel
def diagnostics() -> qd.math.vec3:
    worst_orth = 0.0
    worst_det = 0.0
    axis_sum = 0.0
    for i in R:
        E = R[i].transpose() @ R[i] - qd.Matrix.identity(qd.f32, 3)
        e = 0.0
        for a in qd.static(range(3)):
            for b in qd.static(range(3)):
                e = max(e, abs(E[a, b]))
        qd.atomic_max(worst_orth, e)
        qd.atomic_max(worst_det, abs(R[i].determinant() - 1.0))
        axis_sum += R[i][0, 0] + R[i][1, 1] + R[i][2, 2]
    return qd.math.vec3(worst_orth, worst_det, axis_sum)


def main():
    setup()
    for _ in range(100):
        integrate(0.05)
    local = np.tile(np.array([[1.0, 0.0, 0.0]], np.float32), (N, 1))
    local[::2] = [0.0, 1.0, 0.0]
    out = np.zeros((N, 3), np.float32)
    world_point(local, out)
    d = diagnostics()
    return {"R": R.to_numpy(), "world": out, "axis_sum": np.float32(d[2]),
            "orth_ok": np.int32(d[0] < 1e-5), "det_ok": np.int32(d[1] < 1e-5)}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
