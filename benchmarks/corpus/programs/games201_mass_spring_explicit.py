# corpus: games201_mass_spring_explicit
# source: github:taichi-dev/games201@0abe270cae648f830dab8e907c991fcd3a94c545 mass_spring_explicit.py
# license: NOASSERTION
# area: cloth
# port: ti->qd; ti.init(arch=ti.cpu) kept; the interactive GUI loop replaced by a scripted stand-in: 24 new_particle calls on a 6x4 lattice (top row fixed) as if clicked, then 300 frames of the original substep loop with attract(0.5, 0.8) on frames 100-119 as if right-dragged; checksum lines added
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
rest_length = qd.field(dtype=qd.f32,
                       shape=(max_num_particles, max_num_particles))


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
                f[i] += -spring_Y[None] * (x_ij.norm() / rest_length[i, j] -
                                           1) * d

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

    # stand-in for mouse clicks: a 6x4 lattice, top row fixed
    for j in range(4):
        for i in range(6):
            new_particle(0.5 + 0.06 * i, 0.8 - 0.06 * j, int(j == 0))
    for frame in range(300):
        if 100 <= frame < 120:  # stand-in for a right-drag
            attract(0.5, 0.8)
        if not paused[None]:
            for step in range(substeps):
                substep()
    X = x.to_numpy()
    n = num_particles[None]
    print('checksum num_particles', n)
    print('checksum x_sum', repr(float(X[:n].sum())))
    print('checksum x_abs_sum', repr(float(abs(X[:n]).sum())))
    print('checksum v_abs_sum', repr(float(abs(v.to_numpy()[:n]).sum())))
    print('checksum rest_length_sum', repr(float(rest_length.to_numpy().sum())))


if __name__ == '__main__':
    main()
