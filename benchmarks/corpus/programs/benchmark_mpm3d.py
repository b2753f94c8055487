# corpus: benchmark_mpm3d
# source: github:taichi-dev/taichi_benchmark@7a8c8a5d27748e118355cdf794a959d75bc112ad suites/mpm/src/taichi/mpm3d.py
# license: Apache-2.0
# area: mpm
# port: ti->qd; qd.init(arch=qd.cpu, cpu_max_num_threads=1) (was gpu, device_memory_GB dropped: GPU-only; one thread because float atomics in p2g made two Quadrants runs differ); the element-wise vector conditional `0 if cond else grid_v[I]` rewritten as qd.select(cond, 0, grid_v[I]) (Quadrants removed that form and names qd.select); init()'s qd.random() positions overwritten after init() with numpy-seeded ones of the same range (Quadrants runs disagree); the timing harness: nIters 2048->4, run() returns checksums of x/v/J instead of the time; __main__ runs once with n_grid=16 (was 32, 5 runs) and prints checksum lines
import numpy as np
import quadrants as qd
from time import perf_counter

# Benchmark MPM 3D
# dim, steps, dt = 3, 25, 8e-5


def run_mpm(n_grid=32, nIters=2048):
    qd.init(arch=qd.cpu, cpu_max_num_threads=1)

    dim, steps, dt = 3, 25, 8e-5

    n_particles = n_grid**dim // 2**(dim - 1)
    dx = 1 / n_grid

    p_rho = 1
    p_vol = (dx * 0.5)**2
    p_mass = p_vol * p_rho
    gravity = 9.8
    bound = 3
    E = 400

    x = qd.Vector.field(dim, float, n_particles)
    v = qd.Vector.field(dim, float, n_particles)
    C = qd.Matrix.field(dim, dim, float, n_particles)
    J = qd.field(float, n_particles)

    grid_v = qd.Vector.field(dim, float, (n_grid, ) * dim)
    grid_m = qd.field(float, (n_grid, ) * dim)

    neighbour = (3, ) * dim

    @qd.kernel
    def substep():
        for I in qd.grouped(grid_m):
            grid_v[I] = qd.zero(grid_v[I])
            grid_m[I] = 0

        qd.loop_config(block_dim = 64)
        for p in x:
            Xp = x[p] / dx
            base = int(Xp - 0.5)
            fx = Xp - base
            w = [0.5 * (1.5 - fx)**2, 0.75 - (fx - 1)**2, 0.5 * (fx - 0.5)**2]
            stress = -dt * 4 * E * p_vol * (J[p] - 1) / dx**2
            affine = qd.Matrix.identity(float, dim) * stress + p_mass * C[p]
            for offset in qd.static(qd.grouped(qd.ndrange(*neighbour))):
                dpos = (offset - fx) * dx
                weight = 1.0
                for i in qd.static(range(dim)):
                    weight *= w[offset[i]][i]
                grid_v[base +
                       offset] += weight * (p_mass * v[p] + affine @ dpos)
                grid_m[base + offset] += weight * p_mass
        for I in qd.grouped(grid_m):
            if grid_m[I] > 0:
                grid_v[I] /= grid_m[I]
            grid_v[I][1] -= dt * gravity
            cond = (I < bound) & (grid_v[I] < 0) | \
                   (I > n_grid - bound) & (grid_v[I] > 0)
            grid_v[I] = qd.select(cond, 0, grid_v[I])

        qd.loop_config(block_dim = 64)
        for p in x:
            Xp = x[p] / dx
            base = int(Xp - 0.5)
            fx = Xp - base
            w = [0.5 * (1.5 - fx)**2, 0.75 - (fx - 1)**2, 0.5 * (fx - 0.5)**2]
            new_v = qd.zero(v[p])
            new_C = qd.zero(C[p])
            for offset in qd.static(qd.grouped(qd.ndrange(*neighbour))):
                dpos = (offset - fx) * dx
                weight = 1.0
                for i in qd.static(range(dim)):
                    weight *= w[offset[i]][i]
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
            x[i] = qd.Vector([qd.random() for i in range(dim)]) * 0.4 + 0.15
            J[i] = 1

    def T(a):
        if dim == 2:
            return a

        phi, theta = np.radians(28), np.radians(32)

        a = a - 0.5
        x, y, z = a[:, 0], a[:, 1], a[:, 2]
        c, s = np.cos(phi), np.sin(phi)
        C, S = np.cos(theta), np.sin(theta)
        x, z = x * c + z * s, z * c - x * s
        u, v = x, y * C + z * S
        return np.array([u, v]).swapaxes(0, 1) + 0.5

    def run():
        # skip first run
        init()
        # stand-in for the qd.random() positions of init() (Quadrants runs disagree): numpy-seeded, same range
        x.from_numpy((np.random.RandomState(0).rand(n_particles, dim) * 0.4 + 0.15).astype(np.float32))
        for s in range(steps):
            substep()
        pos = x.to_numpy()
        # measure
        t_start = perf_counter()
        for _ in range(nIters):
            for s in range(steps):
                substep()
            pos = x.to_numpy()
            qd.sync()
        t_stop = perf_counter()
        return {
            'n_particles': n_particles,
            'x_sum': float(x.to_numpy().sum()),
            'v_abs_sum': float(np.abs(v.to_numpy()).sum()),
            'J_sum': float(J.to_numpy().sum()),
        }

    return run()


if __name__ == '__main__':
    n_grid = 16
    result = run_mpm(n_grid, nIters=4)
    for k, val in result.items():
        print('checksum', k, repr(val))
