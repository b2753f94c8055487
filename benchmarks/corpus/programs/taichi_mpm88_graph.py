# corpus: taichi_mpm88_graph
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/graph/mpm88_graph.py
# license: Apache-2.0
# area: mpm
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); the program's own --baseline path taken (its graph mode needs qd.graph.GraphBuilder/qd.graph.Arg, which Quadrants 1.3.3 does not have); qd.random() in init_particles() replaced by the numpy-seeded init_rand field; GUI loop replaced by one round of N_ITER=500 substeps; checksum lines added
import argparse

import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)
n_particles = 8192
n_grid = 128
dx = 1 / n_grid
dt = 2e-4

p_rho = 1
p_vol = (dx * 0.5) ** 2
p_mass = p_vol * p_rho
gravity = 9.8
bound = 3
E = 400
N_ITER = 500  # Use 500 to make speed diff more obvious


@qd.kernel
def substep_reset_grid(grid_v: qd.types.ndarray(ndim=2), grid_m: qd.types.ndarray(ndim=2)):
    for i, j in grid_m:
        grid_v[i, j] = [0, 0]
        grid_m[i, j] = 0


@qd.kernel
def substep_p2g(
    x: qd.types.ndarray(ndim=1),
    v: qd.types.ndarray(ndim=1),
    C: qd.types.ndarray(ndim=1),
    J: qd.types.ndarray(ndim=1),
    grid_v: qd.types.ndarray(ndim=2),
    grid_m: qd.types.ndarray(ndim=2),
):
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


@qd.kernel
def substep_update_grid_v(grid_v: qd.types.ndarray(ndim=2), grid_m: qd.types.ndarray(ndim=2)):
    for i, j in grid_m:
        if grid_m[i, j] > 0:
            grid_v[i, j] /= grid_m[i, j]
        grid_v[i, j].y -= dt * gravity
        if i < bound and grid_v[i, j].x < 0:
            grid_v[i, j].x = 0
        if i > n_grid - bound and grid_v[i, j].x > 0:
            grid_v[i, j].x = 0
        if j < bound and grid_v[i, j].y < 0:
            grid_v[i, j].y = 0
        if j > n_grid - bound and grid_v[i, j].y > 0:
            grid_v[i, j].y = 0


@qd.kernel
def substep_g2p(
    x: qd.types.ndarray(ndim=1),
    v: qd.types.ndarray(ndim=1),
    C: qd.types.ndarray(ndim=1),
    J: qd.types.ndarray(ndim=1),
    grid_v: qd.types.ndarray(ndim=2),
):
    for p in x:
        Xp = x[p] / dx
        base = int(Xp - 0.5)
        fx = Xp - base
        w = [0.5 * (1.5 - fx) ** 2, 0.75 - (fx - 1) ** 2, 0.5 * (fx - 0.5) ** 2]
        new_v = qd.Vector.zero(float, 2)
        new_C = qd.Matrix.zero(float, 2, 2)
        for i, j in qd.static(qd.ndrange(3, 3)):
            offset = qd.Vector([i, j])
            dpos = (offset - fx) * dx
            weight = w[i].x * w[j].y
            g_v = grid_v[base + offset]
            new_v += weight * g_v
            new_C += 4 * weight * g_v.outer_product(dpos) / dx**2
        v[p] = new_v
        x[p] += dt * v[p]
        J[p] *= 1 + dt * new_C.trace()
        C[p] = new_C


init_rand = qd.field(float, (n_particles, 2))
init_rand.from_numpy(np.random.default_rng(0).random((n_particles, 2), dtype=np.float32))


@qd.kernel
def init_particles(
    x: qd.types.ndarray(ndim=1),
    v: qd.types.ndarray(ndim=1),
    J: qd.types.ndarray(ndim=1),
):
    for i in range(n_particles):
        x[i] = [init_rand[i, 0] * 0.4 + 0.2, init_rand[i, 1] * 0.4 + 0.2]
        v[i] = [0, -1]
        J[i] = 1


F_x = qd.Vector.ndarray(2, qd.f32, shape=n_particles)
F_v = qd.Vector.ndarray(2, qd.f32, shape=n_particles)

F_C = qd.Matrix.ndarray(2, 2, qd.f32, shape=n_particles)
F_J = qd.ndarray(qd.f32, shape=n_particles)
F_grid_v = qd.Vector.ndarray(2, qd.f32, shape=(n_grid, n_grid))
F_grid_m = qd.ndarray(qd.f32, shape=(n_grid, n_grid))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", action="store_true")
    args, unknown = parser.parse_known_args()
    args.baseline = True

    if not args.baseline:
        print("running in graph mode")
        # Build graph
        sym_x = qd.graph.Arg(qd.graph.ArgKind.NDARRAY, "x", dtype=qd.math.vec2, ndim=1)
        sym_v = qd.graph.Arg(qd.graph.ArgKind.NDARRAY, "v", dtype=qd.math.vec2, ndim=1)
        sym_C = qd.graph.Arg(qd.graph.ArgKind.NDARRAY, "C", dtype=qd.math.mat2, ndim=1)
        sym_J = qd.graph.Arg(qd.graph.ArgKind.NDARRAY, "J", qd.f32, ndim=1)
        sym_grid_v = qd.graph.Arg(qd.graph.ArgKind.NDARRAY, "grid_v", dtype=qd.math.vec2, ndim=2)
        sym_grid_m = qd.graph.Arg(qd.graph.ArgKind.NDARRAY, "grid_m", dtype=qd.f32, ndim=2)
        g_init_builder = qd.graph.GraphBuilder()
        g_init_builder.dispatch(init_particles, sym_x, sym_v, sym_J)

        g_update_builder = qd.graph.GraphBuilder()
        substep = g_update_builder.create_sequential()

        substep.dispatch(substep_reset_grid, sym_grid_v, sym_grid_m)
        substep.dispatch(substep_p2g, sym_x, sym_v, sym_C, sym_J, sym_grid_v, sym_grid_m)
        substep.dispatch(substep_update_grid_v, sym_grid_v, sym_grid_m)
        substep.dispatch(substep_g2p, sym_x, sym_v, sym_C, sym_J, sym_grid_v)

        for i in range(N_ITER):
            g_update_builder.append(substep)

        # Compile
        g_init = g_init_builder.compile()
        g_update = g_update_builder.compile()

        # Run
        g_init.run({"x": F_x, "v": F_v, "J": F_J})

        gui = qd.GUI("MPM88")
        while gui.running:
            g_update.run(
                {
                    "x": F_x,
                    "v": F_v,
                    "C": F_C,
                    "J": F_J,
                    "grid_v": F_grid_v,
                    "grid_m": F_grid_m,
                }
            )
            gui.clear(0x112F41)
            gui.circles(
                F_x.to_numpy(),  # false+, pylint: disable=no-member
                radius=1.5,
                color=0x068587,
            )
            gui.show()
    else:
        init_particles(F_x, F_v, F_J)
        for frame in range(1):
            for s in range(N_ITER):
                substep_reset_grid(F_grid_v, F_grid_m)
                substep_p2g(F_x, F_v, F_C, F_J, F_grid_v, F_grid_m)
                substep_update_grid_v(F_grid_v, F_grid_m)
                substep_g2p(F_x, F_v, F_C, F_J, F_grid_v)
        xs, vs = F_x.to_numpy().astype(np.float64), F_v.to_numpy().astype(np.float64)
        print("checksum x_sum", float(xs.sum()))
        print("checksum v_abs_sum", float(np.abs(vs).sum()))
        print("checksum J_sum", float(F_J.to_numpy().astype(np.float64).sum()))
        print("checksum grid_m_sum", float(F_grid_m.to_numpy().astype(np.float64).sum()))


if __name__ == "__main__":
    main()
