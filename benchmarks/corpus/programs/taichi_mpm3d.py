# corpus: taichi_mpm3d
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/mpm3d.py
# license: Apache-2.0
# area: mpm
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); qd.random() in init() replaced by the numpy-seeded init_rand field; GUI loop and PLY export replaced by 4 frames of 25 substeps; checksum lines added
export_file = ""  # use '/tmp/mpm3d.ply' for exporting result to disk

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)

# dim, n_grid, steps, dt = 2, 128, 20, 2e-4
# dim, n_grid, steps, dt = 2, 256, 32, 1e-4
dim, n_grid, steps, dt = 3, 32, 25, 4e-4
# dim, n_grid, steps, dt = 3, 64, 25, 2e-4
# dim, n_grid, steps, dt = 3, 128, 25, 8e-5

n_particles = n_grid**dim // 2 ** (dim - 1)
dx = 1 / n_grid

p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
gravity = 9.8
bound = 3
E = 400

F_x = qd.Vector.field(dim, float, n_particles)
F_v = qd.Vector.field(dim, float, n_particles)
F_C = qd.Matrix.field(dim, dim, float, n_particles)
F_J = qd.field(float, n_particles)

F_grid_v = qd.Vector.field(dim, float, (n_grid,) * dim)
F_grid_m = qd.field(float, (n_grid,) * dim)

neighbour = (3,) * dim


@qd.kernel
def substep():
    for I in qd.grouped(F_grid_m):
        F_grid_v[I] = qd.zero(F_grid_v[I])
        F_grid_m[I] = 0
    qd.loop_config(block_dim=n_grid)
    for p in F_x:
        Xp = F_x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        stress = -dt * 4 * E * p_vol * (F_J[p] - 1) / dx**2
        affine = qd.Matrix.identity(float, dim) * stress + p_mass * F_C[p]
        for offset in qd.static(qd.grouped(qd.ndrange(*neighbour))):
            dpos = (offset - fx) * dx
            weight = 1.0
            for i in qd.static(range(dim)):
                weight *= w[offset[i]][i]
            F_grid_v[base + offset] += weight * (p_mass * F_v[p] + affine @ dpos)
            F_grid_m[base + offset] += weight * p_mass
    for I in qd.grouped(F_grid_m):
        if F_grid_m[I] > 0:
            F_grid_v[I] /= F_grid_m[I]
        F_grid_v[I][1] -= dt * gravity
        cond = (I < bound) & (F_grid_v[I] < 0) | (I > n_grid - bound) & (F_grid_v[I] > 0)
        F_grid_v[I] = qd.select(cond, 0, F_grid_v[I])
    qd.loop_config(block_dim=n_grid)
    for p in F_x:
        Xp = F_x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = qd.zero(F_v[p])
        new_C = qd.zero(F_C[p])
        for offset in qd.static(qd.grouped(qd.ndrange(*neighbour))):
            dpos = (offset - fx) * dx
            weight = 1.0
            for i in qd.static(range(dim)):
                weight *= w[offset[i]][i]
            g_v = F_grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        F_v[p] = new_v
        F_x[p] += dt * F_v[p]
        F_J[p] *= 1 + dt * new_C.trace()
        F_C[p] = new_C


init_rand = qd.field(float, (n_particles, dim))
init_rand.from_numpy(np.random.default_rng(0).random((n_particles, dim), dtype=np.float32))


@qd.kernel
def init():
    for i in range(n_particles):
        F_x[i] = qd.Vector([init_rand[i, d] for d in range(dim)]) * 0.4 + 0.15
        F_J[i] = 1


def T(a):
    if dim == 2:
        return a

    phi, theta = np.radians(28), np.radians(32)

    a = a - 0.5
    x, y, z = a[:, 0], a[:, 1], a[:, 2]
    cp, sp = np.cos(phi), np.sin(phi)
    ct, st = np.cos(theta), np.sin(theta)
    x, z = x * cp + z * sp, z * cp - x * sp
    u, v = x, y * ct + z * st
    return np.array([u, v]).swapaxes(0, 1) + 0.5


def main():
    init()
    for frame in range(4):
        for s in range(steps):
            substep()
    xs, vs = F_x.to_numpy().astype(np.float64), F_v.to_numpy().astype(np.float64)
    print("checksum x_sum", float(xs.sum()))
    print("checksum v_abs_sum", float(np.abs(vs).sum()))
    print("checksum J_sum", float(F_J.to_numpy().astype(np.float64).sum()))


if __name__ == "__main__":
    main()
