"""MPM88: 2-D material point method, the way Quadrants' examples write it.

Shows: `int(v)` of a vector (componentwise), a Python list of vectors as a kernel local (the
quadratic B-spline weights `w`, indexed by `qd.static` loop variables), `w[i].x`, `.y -= ...` on
a field element, `qd.static(qd.ndrange(3, 3))` and `qd.static(qd.grouped(qd.ndrange(3, 3)))`
(index vectors), `outer_product`, `trace`, `+=` scatter into vector fields, `Vector.zero`.
"""
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

dim, N, n_grid = 2, 32, 64
n_particles = N * N
dx = 1 / n_grid
inv_dx = 1 / dx
dt = 2.0e-4
p_vol = (dx * 0.5) ** 2
p_mass = p_vol
E = 400
x = qd.Vector.field(dim, dtype=qd.f32, shape=n_particles)
v = qd.Vector.field(dim, dtype=qd.f32, shape=n_particles)
C = qd.Matrix.field(dim, dim, dtype=qd.f32, shape=n_particles)
J = qd.field(dtype=qd.f32, shape=n_particles)
grid_v = qd.Vector.field(dim, dtype=qd.f32, shape=(n_grid, n_grid))
grid_m = qd.field(dtype=qd.f32, shape=(n_grid, n_grid))

@qd.kernel
def substep():
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (J[p] - 1) / dx**2
        affine = qd.Matrix([[stress, 0], [0, stress]]) + p_mass * C[p]
        for i, j in qd.static(qd.ndrange(3, 3)):
            offset = qd.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            grid_v[base + offset] += weight * (p_mass * v[p] + affine @ dpos)
            grid_m[base + offset] += weight * p_mass
    for i, j in grid_m:
        if grid_m[i, j] > 0:
            grid_v[i, j] /= grid_m[i, j]
        grid_v[i, j].y -= dt * 9.8
        if i < 3 and grid_v[i, j].x < 0:
            grid_v[i, j].x = 0
        if i > n_grid - 3 and grid_v[i, j].x > 0:
            grid_v[i, j].x = 0
        if j < 3 and grid_v[i, j].y < 0:
            grid_v[i, j].y = 0
        if j > n_grid - 3 and grid_v[i, j].y > 0:
            grid_v[i, j].y = 0
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = qd.Vector.zero(float, 2)
        new_C = qd.Matrix.zero(float, 2, 2)
        for offset in qd.static(qd.grouped(qd.ndrange(3, 3))):
            dpos = (offset - fx) * dx
            weight = w[offset[0]].x * w[offset[1]].y
            g_v = grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        v[p] = new_v
        x[p] += dt * v[p]
        J[p] *= 1 + dt * new_C.trace()
        C[p] = new_C

@qd.kernel
def init():
    for i in range(n_particles):
        x[i] = [i % N / N * 0.4 + 0.2, i // N / N * 0.4 + 0.05]
        v[i] = [0, -3]
        J[i] = 1


def main():
    init()
    for _ in range(200):
        grid_v.fill(0)
        grid_m.fill(0)
        substep()
    pos = x.to_numpy()
    return {"x": pos, "v": v.to_numpy(), "J": J.to_numpy(),
            "moments": np.array([(pos ** (k + 1)).mean() for k in range(4)], np.float64)}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
