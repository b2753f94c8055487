# corpus: taichi_mass_spring_3d_ggui
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/ggui_examples/mass_spring_3d_ggui.py
# license: Apache-2.0
# area: cloth
# port: ti->qd; `arch = ti.vulkan if ti._lib.core.with_vulkan() else ti.cuda` -> arch = qd.cpu, cpu_max_num_threads=1 (substep() reads neighbours' v while other threads update it: the result depends on the threads' order); the two qd.random() of initialize_mass_points() replaced by the numpy-seeded init_rand field; GGUI window loop replaced by 20 frames of `substeps` steps (reset at t > 1.5 kept), rendering calls removed; checksum lines added
import numpy as np
import quadrants as qd

arch = qd.cpu
qd.init(arch=arch, cpu_max_num_threads=1)

n = 128
quad_size = 1.0 / n
dt = 4e-2 / n
substeps = int(1 / 60 // dt)

gravity = qd.Vector([0, -9.8, 0])
spring_Y = 3e4
dashpot_damping = 1e4
drag_damping = 1

ball_radius = 0.3
ball_center = qd.Vector.field(3, dtype=float, shape=(1,))
ball_center[0] = [0, 0, 0]

x = qd.Vector.field(3, dtype=float, shape=(n, n))
v = qd.Vector.field(3, dtype=float, shape=(n, n))

num_triangles = (n - 1) * (n - 1) * 2
indices = qd.field(int, shape=num_triangles * 3)
vertices = qd.Vector.field(3, dtype=float, shape=n * n)
colors = qd.Vector.field(3, dtype=float, shape=n * n)

bending_springs = False


init_rand = qd.field(float, 2)
init_rand.from_numpy(np.random.default_rng(0).random(2, dtype=np.float32))


@qd.kernel
def initialize_mass_points():
    random_offset = qd.Vector([init_rand[0] - 0.5, init_rand[1] - 0.5]) * 0.1

    for i, j in x:
        x[i, j] = [
            i * quad_size - 0.5 + random_offset[0],
            0.6,
            j * quad_size - 0.5 + random_offset[1],
        ]
        v[i, j] = [0, 0, 0]


@qd.kernel
def initialize_mesh_indices():
    for i, j in qd.ndrange(n - 1, n - 1):
        quad_id = (i * (n - 1)) + j
        # 1st triangle of the square
        indices[quad_id * 6 + 0] = i * n + j
        indices[quad_id * 6 + 1] = (i + 1) * n + j
        indices[quad_id * 6 + 2] = i * n + (j + 1)
        # 2nd triangle of the square
        indices[quad_id * 6 + 3] = (i + 1) * n + j + 1
        indices[quad_id * 6 + 4] = i * n + (j + 1)
        indices[quad_id * 6 + 5] = (i + 1) * n + j

    for i, j in qd.ndrange(n, n):
        if (i // 4 + j // 4) % 2 == 0:
            colors[i * n + j] = (0.22, 0.72, 0.52)
        else:
            colors[i * n + j] = (1, 0.334, 0.52)


initialize_mesh_indices()

spring_offsets = []


def initialize_spring_offsets():
    if bending_springs:
        for i in range(-1, 2):
            for j in range(-1, 2):
                if (i, j) != (0, 0):
                    spring_offsets.append(qd.Vector([i, j]))

    else:
        for i in range(-2, 3):
            for j in range(-2, 3):
                if (i, j) != (0, 0) and abs(i) + abs(j) <= 2:
                    spring_offsets.append(qd.Vector([i, j]))


initialize_spring_offsets()


@qd.kernel
def substep():
    for i in qd.grouped(x):
        v[i] += gravity * dt

    for i in qd.grouped(x):
        force = qd.Vector([0.0, 0.0, 0.0])
        for spring_offset in qd.static(spring_offsets):
            j = i + spring_offset
            if 0 <= j[0] < n and 0 <= j[1] < n:
                x_ij = x[i] - x[j]
                v_ij = v[i] - v[j]
                d = x_ij.normalized()
                current_dist = x_ij.norm()
                original_dist = quad_size * float(i - j).norm()  # pylint: disable=no-member
                # Spring force
                force += -spring_Y * d * (current_dist / original_dist - 1)
                # Dashpot damping
                force += -v_ij.dot(d) * d * dashpot_damping * quad_size

        v[i] += force * dt

    for i in qd.grouped(x):
        v[i] *= qd.exp(-drag_damping * dt)
        offset_to_center = x[i] - ball_center[0]
        if offset_to_center.norm() <= ball_radius:
            # Velocity projection
            normal = offset_to_center.normalized()
            v[i] -= qd.min(v[i].dot(normal), 0) * normal
        x[i] += dt * v[i]


@qd.kernel
def update_vertices():
    for i, j in qd.ndrange(n, n):
        vertices[i * n + j] = x[i, j]
def main():
    current_t = 0.0
    initialize_mass_points()

    for frame in range(20):
        if current_t > 1.5:
            # Reset
            initialize_mass_points()
            current_t = 0

        for i in range(substeps):
            substep()
            current_t += dt
        update_vertices()
    xs, vs = x.to_numpy().astype(np.float64), v.to_numpy().astype(np.float64)
    print("checksum x_sum", float(xs.sum()))
    print("checksum v_abs_sum", float(np.abs(vs).sum()))
    print("checksum vertices_sum", float(vertices.to_numpy().astype(np.float64).sum()))
    print("checksum x_min_y", float(xs[..., 1].min()))


if __name__ == "__main__":
    main()
