# corpus: taichi_nbody
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/nbody.py
# license: Apache-2.0
# area: misc
# port: ti->qd; arch=qd.cpu; qd.random() in initialize() replaced by the numpy-seeded init_rand field; N 3000->1000 (time); GUI loop replaced by 20 frames of `substepping` steps; checksum lines added
# Authored by Tiantian Liu, Taichi Graphics.
import math

import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu)

# global control
paused = qd.field(qd.i32, ())

# gravitational constant 6.67408e-11, using 1 for simplicity
G = 1

# number of planets
N = 1000
# unit mass
m = 1
# galaxy size
galaxy_size = 0.4
# planet radius (for rendering)
planet_radius = 2
# init vel
init_vel = 120

# time-step size
h = 1e-4
# substepping
substepping = 10

# center of the screen
center = qd.Vector.field(2, qd.f32, ())

# pos, vel and force of the planets
# Nx2 vectors
pos = qd.Vector.field(2, qd.f32, N)
vel = qd.Vector.field(2, qd.f32, N)
force = qd.Vector.field(2, qd.f32, N)


init_rand = qd.field(float, (N, 2))
init_rand.from_numpy(np.random.default_rng(0).random((N, 2), dtype=np.float32))


@qd.kernel
def initialize():
    center[None] = [0.5, 0.5]
    for i in range(N):
        theta = init_rand[i, 0] * 2 * math.pi
        r = (qd.sqrt(init_rand[i, 1]) * 0.6 + 0.4) * galaxy_size
        offset = r * qd.Vector([qd.cos(theta), qd.sin(theta)])
        pos[i] = center[None] + offset
        vel[i] = [-offset.y, offset.x]
        vel[i] *= init_vel


@qd.kernel
def compute_force():
    # clear force
    for i in range(N):
        force[i] = [0.0, 0.0]

    # compute gravitational force
    for i in range(N):
        p = pos[i]
        for j in range(N):
            if i != j:  # double the computation for a better memory footprint and load balance
                diff = p - pos[j]
                r = diff.norm(1e-5)

                # gravitational force -(GMm / r^2) * (diff/r) for i
                f = -G * m * m * (1.0 / r) ** 3 * diff

                # assign to each particle
                force[i] += f


@qd.kernel
def update():
    dt = h / substepping
    for i in range(N):
        # symplectic euler
        vel[i] += dt * force[i] / m
        pos[i] += dt * vel[i]


def main():

    initialize()
    for frame in range(20):
        if not paused[None]:
            for i in range(substepping):
                compute_force()
                update()
    ps, vs = pos.to_numpy().astype(np.float64), vel.to_numpy().astype(np.float64)
    print("checksum pos_sum", float(ps.sum()))
    print("checksum vel_abs_sum", float(np.abs(vs).sum()))
    print("checksum pos0", float(ps[0].sum()))


if __name__ == "__main__":
    main()
