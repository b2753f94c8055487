# corpus: taichi_pbf2d
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/pbf2d.py
# license: Apache-2.0
# area: sph
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (atomic neighbour lists and float sums in a deterministic order); qd.random() replaced: in init_particles() by the numpy-seeded init_rand field, in confine_position_to_boundary() by jitter[None], one numpy-seeded value set before each step; GUI loop replaced by 80 steps (print_stats every 20th kept); checksum lines added
# Macklin, M. and Müller, M., 2013. Position based fluids. ACM Transactions on Graphics (TOG), 32(4), p.104.
# Taichi implementation by Ye Kuang (k-ye)

import math

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)

screen_res = (800, 400)
screen_to_world_ratio = 10.0
boundary = (
    screen_res[0] / screen_to_world_ratio,
    screen_res[1] / screen_to_world_ratio,
)
cell_size = 2.51
cell_recpr = 1.0 / cell_size


def round_up(f, s):
    return (math.floor(f * cell_recpr / s) + 1) * s


grid_size = (round_up(boundary[0], 1), round_up(boundary[1], 1))

dim = 2
bg_color = 0x112F41
particle_color = 0x068587
boundary_color = 0xEBACA2
num_particles_x = 60
num_particles = num_particles_x * 20
max_num_particles_per_cell = 100
max_num_neighbors = 100
time_delta = 1.0 / 20.0
epsilon = 1e-5
particle_radius = 3.0
particle_radius_in_world = particle_radius / screen_to_world_ratio

# PBF params
h_ = 1.1
mass = 1.0
rho0 = 1.0
lambda_epsilon = 100.0
pbf_num_iters = 5
corr_deltaQ_coeff = 0.3
corrK = 0.001
# Need qd.pow()
# corrN = 4.0
neighbor_radius = h_ * 1.05

poly6_factor = 315.0 / 64.0 / math.pi
spiky_grad_factor = -45.0 / math.pi

old_positions = qd.Vector.field(dim, float)
positions = qd.Vector.field(dim, float)
velocities = qd.Vector.field(dim, float)
grid_num_particles = qd.field(int)
grid2particles = qd.field(int)
particle_num_neighbors = qd.field(int)
particle_neighbors = qd.field(int)
lambdas = qd.field(float)
position_deltas = qd.Vector.field(dim, float)
# 0: x-pos, 1: timestep in sin()
board_states = qd.Vector.field(2, float)

qd.root.dense(qd.i, num_particles).place(old_positions, positions, velocities)
grid_snode = qd.root.dense(qd.ij, grid_size)
grid_snode.place(grid_num_particles)
grid_snode.dense(qd.k, max_num_particles_per_cell).place(grid2particles)
nb_node = qd.root.dense(qd.i, num_particles)
nb_node.place(particle_num_neighbors)
nb_node.dense(qd.j, max_num_neighbors).place(particle_neighbors)
qd.root.dense(qd.i, num_particles).place(lambdas, position_deltas)
qd.root.place(board_states)


@qd.func
def poly6_value(s, h):
    result = 0.0
    if 0 < s and s < h:
        x = (h * h - s * s) / (h * h * h)
        result = poly6_factor * x * x * x
    return result


@qd.func
def spiky_gradient(r, h):
    result = qd.Vector([0.0, 0.0])
    r_len = r.norm()
    if 0 < r_len and r_len < h:
        x = (h - r_len) / (h * h * h)
        g_factor = spiky_grad_factor * x * x
        result = r * g_factor / r_len
    return result


@qd.func
def compute_scorr(pos_ji):
    # Eq (13)
    x = poly6_value(pos_ji.norm(), h_) / poly6_value(corr_deltaQ_coeff * h_, h_)
    # pow(x, 4)
    x = x * x
    x = x * x
    return (-corrK) * x


@qd.func
def get_cell(pos):
    return int(pos * cell_recpr)


@qd.func
def is_in_grid(c):
    # @c: Vector(i32)
    return 0 <= c[0] and c[0] < grid_size[0] and 0 <= c[1] and c[1] < grid_size[1]


jitter = qd.field(float, ())


@qd.func
def confine_position_to_boundary(p):
    bmin = particle_radius_in_world
    bmax = qd.Vector([board_states[None][0], boundary[1]]) - particle_radius_in_world
    for i in qd.static(range(dim)):
        # Use randomness to prevent particles from sticking into each other after clamping
        if p[i] <= bmin:
            p[i] = bmin + epsilon * jitter[None]
        elif bmax[i] <= p[i]:
            p[i] = bmax[i] - epsilon * jitter[None]
    return p


@qd.kernel
def move_board():
    # probably more accurate to exert force on particles according to hooke's law.
    b = board_states[None]
    b[1] += 1.0
    period = 90
    vel_strength = 8.0
    if b[1] >= 2 * period:
        b[1] = 0
    b[0] += -qd.sin(b[1] * np.pi / period) * vel_strength * time_delta
    board_states[None] = b


@qd.kernel
def prologue():
    # save old positions
    for i in positions:
        old_positions[i] = positions[i]
    # apply gravity within boundary
    for i in positions:
        g = qd.Vector([0.0, -9.8])
        pos, vel = positions[i], velocities[i]
        vel += g * time_delta
        pos += vel * time_delta
        positions[i] = confine_position_to_boundary(pos)

    # clear neighbor lookup table
    for I in qd.grouped(grid_num_particles):
        grid_num_particles[I] = 0
    for I in qd.grouped(particle_neighbors):
        particle_neighbors[I] = -1

    # update grid
    for p_i in positions:
        cell = get_cell(positions[p_i])
        # qd.Vector doesn't seem to support unpacking yet
        # but we can directly use int Vectors as indices
        offs = qd.atomic_add(grid_num_particles[cell], 1)
        grid2particles[cell, offs] = p_i
    # find particle neighbors
    for p_i in positions:
        pos_i = positions[p_i]
        cell = get_cell(pos_i)
        nb_i = 0
        for offs in qd.static(qd.grouped(qd.ndrange((-1, 2), (-1, 2)))):
            cell_to_check = cell + offs
            if is_in_grid(cell_to_check):
                for j in range(grid_num_particles[cell_to_check]):
                    p_j = grid2particles[cell_to_check, j]
                    if nb_i < max_num_neighbors and p_j != p_i and (pos_i - positions[p_j]).norm() < neighbor_radius:
                        particle_neighbors[p_i, nb_i] = p_j
                        nb_i += 1
        particle_num_neighbors[p_i] = nb_i


@qd.kernel
def substep():
    # compute lambdas
    # Eq (8) ~ (11)
    for p_i in positions:
        pos_i = positions[p_i]

        grad_i = qd.Vector([0.0, 0.0])
        sum_gradient_sqr = 0.0
        density_constraint = 0.0

        for j in range(particle_num_neighbors[p_i]):
            p_j = particle_neighbors[p_i, j]
            if p_j < 0:
                break
            pos_ji = pos_i - positions[p_j]
            grad_j = spiky_gradient(pos_ji, h_)
            grad_i += grad_j
            sum_gradient_sqr += grad_j.dot(grad_j)
            # Eq(2)
            density_constraint += poly6_value(pos_ji.norm(), h_)

        # Eq(1)
        density_constraint = (mass * density_constraint / rho0) - 1.0

        sum_gradient_sqr += grad_i.dot(grad_i)
        lambdas[p_i] = (-density_constraint) / (sum_gradient_sqr + lambda_epsilon)
    # compute position deltas
    # Eq(12), (14)
    for p_i in positions:
        pos_i = positions[p_i]
        lambda_i = lambdas[p_i]

        pos_delta_i = qd.Vector([0.0, 0.0])
        for j in range(particle_num_neighbors[p_i]):
            p_j = particle_neighbors[p_i, j]
            if p_j < 0:
                break
            lambda_j = lambdas[p_j]
            pos_ji = pos_i - positions[p_j]
            scorr_ij = compute_scorr(pos_ji)
            pos_delta_i += (lambda_i + lambda_j + scorr_ij) * spiky_gradient(pos_ji, h_)

        pos_delta_i /= rho0
        position_deltas[p_i] = pos_delta_i
    # apply position deltas
    for i in positions:
        positions[i] += position_deltas[i]


@qd.kernel
def epilogue():
    # confine to boundary
    for i in positions:
        pos = positions[i]
        positions[i] = confine_position_to_boundary(pos)
    # update velocities
    for i in positions:
        velocities[i] = (positions[i] - old_positions[i]) / time_delta
    # no vorticity/xsph because we cannot do cross product in 2D...


def run_pbf():
    prologue()
    for _ in range(pbf_num_iters):
        substep()
    epilogue()


def render(gui):
    gui.clear(bg_color)
    pos_np = positions.to_numpy()
    for j in range(dim):
        pos_np[:, j] *= screen_to_world_ratio / screen_res[j]
    gui.circles(pos_np, radius=particle_radius, color=particle_color)
    gui.rect(
        (0, 0),
        (board_states[None][0] / boundary[0], 1),
        radius=1.5,
        color=boundary_color,
    )
    gui.show()


init_rand = qd.field(float, (num_particles, dim))
init_rand.from_numpy(np.random.default_rng(0).random((num_particles, dim), dtype=np.float32))


@qd.kernel
def init_particles():
    for i in range(num_particles):
        delta = h_ * 0.8
        offs = qd.Vector([(boundary[0] - delta * num_particles_x) * 0.5, boundary[1] * 0.02])
        positions[i] = qd.Vector([i % num_particles_x, i // num_particles_x]) * delta + offs
        for c in qd.static(range(dim)):
            velocities[i][c] = (init_rand[i, c] - 0.5) * 4
    board_states[None] = qd.Vector([boundary[0] - epsilon, -0.0])


def print_stats():
    print("PBF stats:")
    num = grid_num_particles.to_numpy()
    avg, max_ = np.mean(num), np.max(num)
    print(f"  #particles per cell: avg={avg:.2f} max={max_}")
    num = particle_num_neighbors.to_numpy()
    avg, max_ = np.mean(num), np.max(num)
    print(f"  #neighbors per particle: avg={avg:.2f} max={max_}")


def main():
    init_particles()
    print(f"boundary={boundary} grid={grid_size} cell_size={cell_size}")
    rng = np.random.default_rng(1)
    for frame in range(80):
        jitter[None] = float(rng.random())
        move_board()
        run_pbf()
        if frame % 20 == 1:
            print_stats()
    ps, vs = positions.to_numpy().astype(np.float64), velocities.to_numpy().astype(np.float64)
    print("checksum pos_sum", float(ps.sum()))
    print("checksum vel_abs_sum", float(np.abs(vs).sum()))
    print("checksum board", float(board_states[None][0]))
    print("checksum neighbors", int(particle_num_neighbors.to_numpy().astype(np.int64).sum()))


if __name__ == "__main__":
    main()
