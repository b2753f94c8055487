# corpus: taichi_mpm3d_ggui
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/ggui_examples/mpm3d_ggui.py
# license: Apache-2.0
# area: mpm
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); n_grid 64->32 (time; the file's own commented 3-D setting, with steps 25 and dt 2e-4 kept); qd.random() in init_cube_vol() replaced by the numpy-seeded init_rand field; preset 'Water Snow Jelly' (curr_preset_id = 2, as its GUI checkbox) ; GGUI window, camera, options and rendering removed, loop replaced by 2 frames of `steps` substeps, set_color_by_material called once; checksum lines added
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)

# dim, n_grid, steps, dt = 2, 128, 20, 2e-4
# dim, n_grid, steps, dt = 2, 256, 32, 1e-4
# dim, n_grid, steps, dt = 3, 32, 25, 4e-4
dim, n_grid, steps, dt = 3, 32, 25, 2e-4
# dim, n_grid, steps, dt = 3, 128, 5, 1e-4

n_particles = n_grid**dim // 2 ** (dim - 1)

print(n_particles)

dx = 1 / n_grid

p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
GRAVITY = [0, -9.8, 0]
bound = 3
E = 1000  # Young's modulus
nu = 0.2  #  Poisson's ratio
mu_0, lambda_0 = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))  # Lame parameters

F_x = qd.Vector.field(dim, float, n_particles)
F_v = qd.Vector.field(dim, float, n_particles)
F_C = qd.Matrix.field(dim, dim, float, n_particles)
F_dg = qd.Matrix.field(3, 3, dtype=float, shape=n_particles)  # deformation gradient
F_Jp = qd.field(float, n_particles)

F_colors = qd.Vector.field(4, float, n_particles)
F_colors_random = qd.Vector.field(4, float, n_particles)
F_materials = qd.field(int, n_particles)
F_grid_v = qd.Vector.field(dim, float, (n_grid,) * dim)
F_grid_m = qd.field(float, (n_grid,) * dim)
F_used = qd.field(int, n_particles)

neighbour = (3,) * dim

init_rand = qd.field(float, (n_particles, 7))
init_rand.from_numpy(np.random.default_rng(0).random((n_particles, 7), dtype=np.float32))

WATER = 0
JELLY = 1
SNOW = 2


@qd.kernel
def substep(g_x: float, g_y: float, g_z: float):
    for I in qd.grouped(F_grid_m):
        F_grid_v[I] = qd.zero(F_grid_v[I])
        F_grid_m[I] = 0
    qd.loop_config(block_dim=n_grid)
    for p in F_x:
        if F_used[p] == 0:
            continue
        Xp = F_x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]

        F_dg[p] = (qd.Matrix.identity(float, 3) + dt * F_C[p]) @ F_dg[p]  # deformation gradient update
        # Hardening coefficient: snow gets harder when compressed
        h = qd.exp(10 * (1.0 - F_Jp[p]))
        if F_materials[p] == JELLY:  # jelly, make it softer
            h = 0.3
        mu, la = mu_0 * h, lambda_0 * h
        if F_materials[p] == WATER:  # liquid
            mu = 0.0

        U, sig, V = qd.svd(F_dg[p])
        J = 1.0
        for d in qd.static(range(3)):
            new_sig = sig[d, d]
            if F_materials[p] == SNOW:  # Snow
                new_sig = qd.min(qd.max(sig[d, d], 1 - 2.5e-2), 1 + 4.5e-3)  # Plasticity
            F_Jp[p] *= sig[d, d] / new_sig
            sig[d, d] = new_sig
            J *= new_sig
        if F_materials[p] == WATER:
            # Reset deformation gradient to avoid numerical instability
            new_F = qd.Matrix.identity(float, 3)
            new_F[0, 0] = J
            F_dg[p] = new_F
        elif F_materials[p] == SNOW:
            # Reconstruct elastic deformation gradient after plasticity
            F_dg[p] = U @ sig @ V.transpose()
        stress = 2 * mu * (F_dg[p] - U @ V.transpose()) @ F_dg[p].transpose() + qd.Matrix.identity(
            float, 3
        ) * la * J * (J - 1)
        stress = (-dt * p_vol * 4) * stress / dx**2
        affine = stress + p_mass * F_C[p]

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
        F_grid_v[I] += dt * qd.Vector([g_x, g_y, g_z])
        cond = (I < bound) & (F_grid_v[I] < 0) | (I > n_grid - bound) & (F_grid_v[I] > 0)
        F_grid_v[I] = qd.select(cond, 0, F_grid_v[I])
    qd.loop_config(block_dim=n_grid)
    for p in F_x:
        if F_used[p] == 0:
            continue
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
        F_C[p] = new_C


class CubeVolume:
    def __init__(self, minimum, size, material):
        self.minimum = minimum
        self.size = size
        self.volume = self.size.x * self.size.y * self.size.z
        self.material = material


@qd.kernel
def init_cube_vol(
    first_par: int,
    last_par: int,
    x_begin: float,
    y_begin: float,
    z_begin: float,
    x_size: float,
    y_size: float,
    z_size: float,
    material: int,
):
    for i in range(first_par, last_par):
        F_x[i] = qd.Vector([init_rand[i, d] for d in range(dim)]) * qd.Vector([x_size, y_size, z_size]) + qd.Vector(
            [x_begin, y_begin, z_begin]
        )
        F_Jp[i] = 1
        F_dg[i] = qd.Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        F_v[i] = qd.Vector([0.0, 0.0, 0.0])
        F_materials[i] = material
        F_colors_random[i] = qd.Vector([init_rand[i, 3], init_rand[i, 4], init_rand[i, 5], init_rand[i, 6]])
        F_used[i] = 1


@qd.kernel
def set_all_unused():
    for p in F_used:
        F_used[p] = 0
        # basically throw them away so they aren't rendered
        F_x[p] = qd.Vector([533799.0, 533799.0, 533799.0])
        F_Jp[p] = 1
        F_dg[p] = qd.Matrix([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
        F_C[p] = qd.Matrix([[0, 0, 0], [0, 0, 0], [0, 0, 0]])
        F_v[p] = qd.Vector([0.0, 0.0, 0.0])


def init_vols(vols):
    set_all_unused()
    total_vol = 0
    for v in vols:
        total_vol += v.volume

    next_p = 0
    for i, v in enumerate(vols):
        v = vols[i]
        if isinstance(v, CubeVolume):
            par_count = int(v.volume / total_vol * n_particles)
            if i == len(vols) - 1:  # this is the last volume, so use all remaining particles
                par_count = n_particles - next_p
            init_cube_vol(next_p, next_p + par_count, *v.minimum, *v.size, v.material)
            next_p += par_count
        else:
            raise Exception("???")


@qd.kernel
def set_color_by_material(mat_color: qd.types.ndarray()):
    for i in range(n_particles):
        mat = F_materials[i]
        F_colors[i] = qd.Vector([mat_color[mat, 0], mat_color[mat, 1], mat_color[mat, 2], 1.0])


print("Loading presets...this might take a minute")

presets = [
    [
        CubeVolume(qd.Vector([0.55, 0.05, 0.55]), qd.Vector([0.4, 0.4, 0.4]), WATER),
    ],
    [
        CubeVolume(qd.Vector([0.05, 0.05, 0.05]), qd.Vector([0.3, 0.4, 0.3]), WATER),
        CubeVolume(qd.Vector([0.65, 0.05, 0.65]), qd.Vector([0.3, 0.4, 0.3]), WATER),
    ],
    [
        CubeVolume(qd.Vector([0.6, 0.05, 0.6]), qd.Vector([0.25, 0.25, 0.25]), WATER),
        CubeVolume(qd.Vector([0.35, 0.35, 0.35]), qd.Vector([0.25, 0.25, 0.25]), SNOW),
        CubeVolume(qd.Vector([0.05, 0.6, 0.05]), qd.Vector([0.25, 0.25, 0.25]), JELLY),
    ],
]
preset_names = [
    "Single Dam Break",
    "Double Dam Break",
    "Water Snow Jelly",
]

curr_preset_id = 2

paused = False

use_random_colors = False
particles_radius = 0.02

material_colors = [(0.1, 0.6, 0.9), (0.93, 0.33, 0.23), (1.0, 1.0, 1.0)]


def init():
    global paused
    init_vols(presets[curr_preset_id])


init()


def main():
    set_color_by_material(np.array(material_colors, dtype=np.float32))
    for frame in range(2):
        if not paused:
            for _ in range(steps):
                substep(*GRAVITY)
    xs, vs = F_x.to_numpy().astype(np.float64), F_v.to_numpy().astype(np.float64)
    print("checksum x_sum", float(xs.sum()))
    print("checksum v_abs_sum", float(np.abs(vs).sum()))
    print("checksum Jp_sum", float(F_Jp.to_numpy().astype(np.float64).sum()))
    print("checksum dg_sum", float(F_dg.to_numpy().astype(np.float64).sum()))
    print("checksum colors_sum", float(F_colors.to_numpy().astype(np.float64).sum()))


if __name__ == "__main__":
    main()
