# corpus: taichi_mpm_lagrangian_forces
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/mpm_lagrangian_forces.py
# license: Apache-2.0
# area: mpm
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); GUI loop replaced by 2 frames of 100 substeps; checksum lines added
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)

dim = 2
quality = 1  # Use a larger integral number for higher quality
n_particle_x = 100 * quality
n_particle_y = 8 * quality
n_particles = n_particle_x * n_particle_y
n_elements = (n_particle_x - 1) * (n_particle_y - 1) * 2
n_grid = 64 * quality
dx = 1 / n_grid
inv_dx = 1 / dx
dt = 1e-4 / quality
E = 25000
p_mass = 1
p_vol = 1
mu = 1
la = 1

x = qd.Vector.field(dim, dtype=float, shape=n_particles, needs_grad=True)
v = qd.Vector.field(dim, dtype=float, shape=n_particles)
C = qd.Matrix.field(dim, dim, dtype=float, shape=n_particles)
grid_v = qd.Vector.field(dim, dtype=float, shape=(n_grid, n_grid))
grid_m = qd.field(dtype=float, shape=(n_grid, n_grid))
restT = qd.Matrix.field(dim, dim, dtype=float, shape=n_elements)
total_energy = qd.field(dtype=float, shape=(), needs_grad=True)
vertices = qd.field(dtype=qd.i32, shape=(n_elements, 3))


@qd.func
def mesh(i, j):
    return i * n_particle_y + j


@qd.func
def compute_T(i):
    a = vertices[i, 0]
    b = vertices[i, 1]
    c = vertices[i, 2]
    ab = x[b] - x[a]
    ac = x[c] - x[a]
    return qd.Matrix([[ab[0], ac[0]], [ab[1], ac[1]]])


@qd.kernel
def initialize():
    for i in range(n_particle_x):
        for j in range(n_particle_y):
            t = mesh(i, j)
            x[t] = [0.1 + i * dx * 0.5, 0.7 + j * dx * 0.5]
            v[t] = [0, -1]

    # build mesh
    for i in range(n_particle_x - 1):
        for j in range(n_particle_y - 1):
            # element id
            eid = (i * (n_particle_y - 1) + j) * 2
            vertices[eid, 0] = mesh(i, j)
            vertices[eid, 1] = mesh(i + 1, j)
            vertices[eid, 2] = mesh(i, j + 1)

            eid = (i * (n_particle_y - 1) + j) * 2 + 1
            vertices[eid, 0] = mesh(i, j + 1)
            vertices[eid, 1] = mesh(i + 1, j + 1)
            vertices[eid, 2] = mesh(i + 1, j)

    for i in range(n_elements):
        restT[i] = compute_T(i)  # Compute rest T


@qd.kernel
def compute_total_energy():
    for i in range(n_elements):
        currentT = compute_T(i)
        F = currentT @ restT[i].inverse()
        # NeoHookean
        I1 = (F @ F.transpose()).trace()
        J = F.determinant()
        element_energy = 0.5 * mu * (I1 - 2) - mu * qd.log(J) + 0.5 * la * qd.log(J) ** 2
        total_energy[None] += E * element_energy * dx * dx


@qd.kernel
def p2g():
    for p in x:
        base = qd.cast(x[p] * inv_dx - 0.5, qd.i32)
        fx = x[p] * inv_dx - qd.cast(base, float)
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        affine = p_mass * C[p]
        for i in qd.static(range(3)):
            for j in qd.static(range(3)):
                I = qd.Vector([i, j])
                dpos = (float(I) - fx) * dx
                weight = w[i].x * w[j].y
                grid_v[base + I] += weight * (p_mass * v[p] - dt * x.grad[p] + affine @ dpos)
                grid_m[base + I] += weight * p_mass


bound = 3


@qd.kernel
def grid_op():
    for i, j in grid_m:
        if grid_m[i, j] > 0:
            inv_m = 1 / grid_m[i, j]
            grid_v[i, j] = inv_m * grid_v[i, j]
            grid_v[i, j].y -= dt * 9.8

            # center collision circle
            dist = qd.Vector([i * dx - 0.5, j * dx - 0.5])
            if dist.norm_sqr() < 0.005:
                dist = dist.normalized()
                grid_v[i, j] -= dist * qd.min(0, grid_v[i, j].dot(dist))

            # box
            if i < bound and grid_v[i, j].x < 0:
                grid_v[i, j].x = 0
            if i > n_grid - bound and grid_v[i, j].x > 0:
                grid_v[i, j].x = 0
            if j < bound and grid_v[i, j].y < 0:
                grid_v[i, j].y = 0
            if j > n_grid - bound and grid_v[i, j].y > 0:
                grid_v[i, j].y = 0


@qd.kernel
def g2p():
    for p in x:
        base = qd.cast(x[p] * inv_dx - 0.5, qd.i32)
        fx = x[p] * inv_dx - float(base)
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1.0) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = qd.Vector([0.0, 0.0])
        new_C = qd.Matrix([[0.0, 0.0], [0.0, 0.0]])

        for i in qd.static(range(3)):
            for j in qd.static(range(3)):
                I = qd.Vector([i, j])
                dpos = float(I) - fx
                g_v = grid_v[base + I]
                weight = w[i].x * w[j].y
                new_v += weight * g_v
                new_C += 4 * weight * g_v.outer_product(dpos) * inv_dx

        v[p] = new_v
        x[p] += dt * v[p]
        C[p] = new_C




def main():
    initialize()

    vertices_ = vertices.to_numpy()

    for frame in range(2):
        for s in range(int(1e-2 // dt)):
            grid_m.fill(0)
            grid_v.fill(0)
            # Note that we are now differentiating the total energy w.r.t. the particle position.
            # Recall that F = - \partial (total_energy) / \partial x
            with qd.ad.Tape(total_energy):
                # Do the forward computation of total energy and backward propagation for x.grad, which is later used in p2g
                compute_total_energy()
                # It's OK not to use the computed total_energy at all, since we only need x.grad
            p2g()
            grid_op()
            g2p()
    xs, vs = x.to_numpy().astype(np.float64), v.to_numpy().astype(np.float64)
    print("checksum x_sum", float(xs.sum()))
    print("checksum v_abs_sum", float(np.abs(vs).sum()))
    print("checksum energy", float(total_energy[None]))
    print("checksum x_grad_abs_sum", float(np.abs(x.grad.to_numpy().astype(np.float64)).sum()))


if __name__ == "__main__":
    main()
