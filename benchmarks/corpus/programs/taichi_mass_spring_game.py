# corpus: taichi_mass_spring_game
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/mass_spring_game.py
# license: Apache-2.0
# area: solids
# port: ti->qd; arch=qd.cpu; GUI event loop replaced by 150 frames with scripted input: a particle added every 5th frame at fixed positions (every 7th fixed, as shift-click), attract(0.5, 0.8) in frames 100-109 (as right-click); drawing removed; checksum lines added
# Tutorials (Chinese):
# - https://www.bilibili.com/video/BV1UK4y177iH
# - https://www.bilibili.com/video/BV1DK411A771

import numpy as np
import quadrants as qd

qd.init(arch=qd.cpu)

spring_Y = qd.field(dtype=qd.f32, shape=())  # Young's modulus
paused = qd.field(dtype=qd.i32, shape=())
drag_damping = qd.field(dtype=qd.f32, shape=())
dashpot_damping = qd.field(dtype=qd.f32, shape=())

max_num_particles = 1024
particle_mass = 1.0
dt = 1e-3
substeps = 10

num_particles = qd.field(dtype=qd.i32, shape=())
x = qd.Vector.field(2, dtype=qd.f32, shape=max_num_particles)
v = qd.Vector.field(2, dtype=qd.f32, shape=max_num_particles)
f = qd.Vector.field(2, dtype=qd.f32, shape=max_num_particles)
fixed = qd.field(dtype=qd.i32, shape=max_num_particles)

# rest_length[i, j] == 0 means i and j are NOT connected
rest_length = qd.field(dtype=qd.f32, shape=(max_num_particles, max_num_particles))


@qd.kernel
def substep():
    n = num_particles[None]

    # Compute force
    for i in range(n):
        # Gravity
        f[i] = qd.Vector([0, -9.8]) * particle_mass
        for j in range(n):
            if rest_length[i, j] != 0:
                x_ij = x[i] - x[j]
                d = x_ij.normalized()

                # Spring force
                f[i] += -spring_Y[None] * (x_ij.norm() / rest_length[i, j] - 1) * d

                # Dashpot damping
                v_rel = (v[i] - v[j]).dot(d)
                f[i] += -dashpot_damping[None] * v_rel * d

    # We use a semi-implicit Euler (aka symplectic Euler) time integrator
    for i in range(n):
        if not fixed[i]:
            v[i] += dt * f[i] / particle_mass
            v[i] *= qd.exp(-dt * drag_damping[None])  # Drag damping

            x[i] += v[i] * dt
        else:
            v[i] = qd.Vector([0, 0])

        # Collide with four walls
        for d in qd.static(range(2)):
            # d = 0: treating X (horizontal) component
            # d = 1: treating Y (vertical) component

            if x[i][d] < 0:  # Bottom and left
                x[i][d] = 0  # move particle inside
                v[i][d] = 0  # stop it from moving further

            if x[i][d] > 1:  # Top and right
                x[i][d] = 1  # move particle inside
                v[i][d] = 0  # stop it from moving further


@qd.kernel
def new_particle(pos_x: qd.f32, pos_y: qd.f32, fixed_: qd.i32):
    # Taichi doesn't support using vectors as kernel arguments yet, so we pass scalars
    new_particle_id = num_particles[None]
    x[new_particle_id] = [pos_x, pos_y]
    v[new_particle_id] = [0, 0]
    fixed[new_particle_id] = fixed_
    num_particles[None] += 1

    # Connect with existing particles
    for i in range(new_particle_id):
        dist = (x[new_particle_id] - x[i]).norm()
        connection_radius = 0.15
        if dist < connection_radius:
            # Connect the new particle with particle i
            rest_length[i, new_particle_id] = 0.1
            rest_length[new_particle_id, i] = 0.1


@qd.kernel
def attract(pos_x: qd.f32, pos_y: qd.f32):
    for i in range(num_particles[None]):
        p = qd.Vector([pos_x, pos_y])
        v[i] += -dt * substeps * (x[i] - p) * 100


def main():

    spring_Y[None] = 1000
    drag_damping[None] = 1
    dashpot_damping[None] = 100

    new_particle(0.3, 0.3, False)
    new_particle(0.3, 0.4, False)
    new_particle(0.4, 0.4, False)
    for frame in range(150):
        if frame % 5 == 0 and frame < 150:
            k = frame // 5
            new_particle(0.2 + 0.05 * (k % 8), 0.45 + 0.04 * (k // 8), int(k % 7 == 0))
        if 100 <= frame < 110:
            attract(0.5, 0.8)
        if not paused[None]:
            for step in range(substeps):
                substep()
    n = num_particles[None]
    X, V = x.to_numpy()[:n].astype(np.float64), v.to_numpy()[:n].astype(np.float64)
    print("checksum n", int(n))
    print("checksum x_sum", float(X.sum()))
    print("checksum v_abs_sum", float(np.abs(V).sum()))
    print("checksum springs", int((rest_length.to_numpy() > 0).sum()))


if __name__ == "__main__":
    main()
