# corpus: games201hw_gauss_seidel_mass_spring
# source: github:g1n0st/GAMES201@4d5330858a2b418d433309c96c9874cb1beb61c4 hw1/mass-spring/implicit/gauss_seidel_iterative_method.py
# license: NOASSERTION
# area: solids
# port: ti->qd; the modules it imports (mass_spring_framework.py, implicit_utility.py) inlined in import order, 'from x import *' and sys.path lines dropped; pre-1.0 Taichi names renamed as Taichi itself did (ti.var(...) -> qd.field(...), ti.Vector(n, dt=) -> qd.Vector.field(n, dtype=), ti.Matrix(n, m, dt=) -> qd.Matrix.field(n, m, dtype=)); qd.init(arch=qd.cpu) keeping debug=False; GUI (process_input/process_output) removed, the interactive loop replaced by 15 scripted new_particle clicks on a 5x3 lattice (top row fixed) and 40 frames of 10 substeps; checksum lines added
# ===== inlined: hw1/mass-spring/mass_spring_framework.py =====
# author: g1n0st
# Spring particle system simulation framework,
# including UI interface, user input and editing operations
import quadrants as qd
import numpy as np

qd.init(arch=qd.cpu, debug = False)

max_particles = 256                         # the maximum number of particles
dt = 1e-3                                   # iteration time step

bottom_y = 0.05                             # lower boundary y coordinate
particle_mass = 1                           # mass of single particle
connection_radius = 0.15                    # auto connect particles within radius distance
gravity = [0, -9.8]                         # gravity vector

num_particles = qd.field(qd.i32, shape = ())
damping = qd.field(qd.f32, shape = ())
stiffness = qd.field(qd.f32, shape = ())

x = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
v = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)

# rest_length[i, j] = 0 means i and j are not connected
rest_length = qd.field(qd.f32, shape = (max_particles, max_particles))

# simulation paused and enter edit mode
paused = qd.field(qd.i32, shape = ())

# collide with ground
@qd.func
def collide_with_ground():
    for i in range(num_particles[None]):
        if x[i].y < bottom_y:
            x[i].y = bottom_y
            v[i].y = 0

# compute new position
@qd.func
def update_position():
    for i in range(num_particles[None]):
        x[i] += v[i] * dt
        
@qd.kernel
def new_particle(pos_x : qd.f32, pos_y : qd.f32, mode : qd.i32):
    new_id = num_particles[None]
    num_particles[None] += 1
    x[new_id] = [pos_x, pos_y]
    v[new_id] = [0, 0]

    # ('n' Mode) Add particle without connection
    # ...
    # (Shift Mode) Add particle connect to last added particle
    if mode == 1 and new_id > 0:
        dist = (x[new_id] - x[new_id - 1]).norm()
        rest_length[new_id - 1, new_id] = dist
        rest_length[new_id, new_id - 1] = dist
        
    # (Normal Mode) connect with existing particles
    if mode == 2:
        for i in range(new_id):
            dist = (x[new_id] - x[i]).norm()
            if dist < connection_radius:
                rest_length[i, new_id] = dist
                rest_length[new_id, i] = dist

@qd.kernel
def modify_springs(pos_x : qd.f32, pos_y : qd.f32) :
    eps = 0.003

    for i in range(num_particles[None]):
        for j in range(i):
            # claculate the parameters of straight line general equation
            A = x[j].y - x[i].y
            B = x[i].x - x[j].x
            C = x[j].x * x[i].y - x[i].x * x[j].y
            norm = qd.sqrt(A * A + B * B)

            # calculate the distance of the point to the straight line
            dist = qd.abs((A * pos_x + B * pos_y + C) / norm)
            # r means AP.AB / ||AB||
            r = ((pos_y - x[i].y) * A - (pos_x - x[i].x) * B) / (norm * norm)
            if dist < eps and 0 < r < 1:
                if rest_length[i, j] != 0:
                    rest_length[i, j] = 0
                    rest_length[j, i] = 0
                else:
                    rest_length[i, j] = norm
                    rest_length[j, i] = norm
                break

cursor_pos = qd.Vector.field(2, dtype = qd.f32, shape = ())
@qd.kernel
def modify_particles(pos_x : qd.f32, pos_y : qd.f32):
    eps = 0.015
    cursor_pos[None].x = pos_x
    cursor_pos[None].y = pos_y
    del_particle = -1
    n = num_particles[None]
    for i in range(n):
        if (cursor_pos[None] - x[i]).norm() < eps:
            del_particle = i

    if del_particle != -1:
        # remove i-th particle means use the last particle's data to replace it
        for i in range(n):
            rest_length[i, del_particle] = rest_length[i, n - 1]
            rest_length[del_particle, i] = rest_length[n - 1, i]
            rest_length[i, n - 1] = 0
            rest_length[n - 1, i] = 0

        x[del_particle] = x[n - 1]
        v[del_particle] = v[n - 1]
        x[n - 1] = [0, 0]
        v[n - 1] = [0, 0]
        num_particles[None] -= 1

# (green <-- black --> red)
# red means the spring is elongating
# green means the spring is compressing
@qd.kernel
def calculate_color(delta: qd.f32) -> qd.i32:
    sigmoid = 2 / (1 + qd.exp(-delta * stiffness[None] * 0.1)) - 1
    return int(max(sigmoid, 0) * 0xff) * 0x10000 - int(min(sigmoid, 0) * 0xff) * 0x100

def init_mass_spring_system():
# initial parameter status
    stiffness[None] = 10000
    damping[None] = 5
    paused[None] = False

    new_particle(0.3, 0.3, 2)
    new_particle(0.3, 0.4, 2)
    new_particle(0.4, 0.4, 2)

# process_input()/process_output() (GUI event handling and drawing) removed

# ===== inlined: hw1/mass-spring/implicit/implicit_utility.py =====
# author: g1n0st
# Utility for Implicit Method, including solve A and b (Ax = b)
import sys

# mass matrix of diag(m1, m2, ..., mn)
M = qd.Matrix.field(2, 2, dtype = qd.f32, shape = (max_particles, max_particles))
# jacobi matrix of partial_f / partial_x
J = qd.Matrix.field(2, 2, dtype = qd.f32, shape = (max_particles, max_particles))
# A = [M - beta * dt^2 * J]
A = qd.Matrix.field(2, 2, dtype = qd.f32, shape = (max_particles, max_particles))
# force vector
F = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
# b = dt * F
b = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)

# iteration temp variables
new_v = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)

@qd.kernel
def update_mass_matrix():
    m = qd.Matrix([
        [particle_mass, 0],
        [0, particle_mass]
    ])
    for i in range(num_particles[None]):
        M[i, i] = m

@qd.kernel
def update_jacobi_matrix():
    I = qd.Matrix([
        [1.0, 0.0],
        [0.0, 1.0]
        ])
    for i, d in J:
        J[i, d] *= 0.0
        for j in range(num_particles[None]):
            l_ij = rest_length[i, j]
            if (l_ij != 0) and (d == i or d == j):
                x_ij = x[i] - x[j]
                norm = x_ij.norm()
                unit_x_ij = x_ij / norm
                mat = unit_x_ij.outer_product(unit_x_ij)
                if d == i:
                    J[i, d] += -stiffness[None] * (I - l_ij / norm * (I - mat))
                else:
                    J[i, d] += stiffness[None] * (I - l_ij / norm * (I - mat))

@qd.kernel
def update_A_matrix(beta: qd.f32):
    for i, j in A:
        A[i, j] = M[i, j] - beta * dt**2 * J[i, j]

@qd.kernel
def update_F_vector():
    for i in range(num_particles[None]):
        F[i] = particle_mass * gravity
        
    for i, j in rest_length:
        if rest_length[i, j] != 0:
            x_ij = x[i] - x[j]
            F[i] += -stiffness[None] * (x_ij.norm() - rest_length[i, j]) * x_ij.normalized()
        else:
            pass

@qd.kernel
def update_b_vector():
    for i in range(num_particles[None]):
        v_star = v[i] * qd.exp(-dt * damping[None])
        b[i] = M[i, i] @ v_star + dt * F[i]

@qd.kernel
def update_step():
    collide_with_ground()
    update_position()

# ===== inlined: hw1/mass-spring/implicit/gauss_seidel_iterative_method.py =====
# author: g1n0st
# Gauss-Seidel Iterative Method for Mass-Spring System

# temp data for gauss-seidel iterative method
inv_L = qd.Matrix.field(2, 2, dtype = qd.f32, shape = (max_particles, max_particles))
invL_v = qd.Vector.field(2, dtype = qd.f32, shape = (max_particles))

@qd.kernel
def gauss_seidel_init():
    O = qd.Matrix([
        [0.0, 0.0],
        [0.0, 0.0]
    ])
    I = qd.Matrix([
        [1.0, 0.0],
        [0.0, 1.0]
        ])

    for i, j in inv_L:
        inv_L[i, j] = O
    for i in range(num_particles[None]):
        inv_L[i, i] = I

    # solve L-1, inv of A's upper triangular matrix
    for i in range(num_particles[None]):
        inv_ii = A[i, i].inverse()
        for j in range(i):
            n = A[j, i] @ inv_ii
            inv_L[j, i] -= n

    for i in range(num_particles[None]):
        inv_ii = A[i, i].inverse()
        for j in range(i, num_particles[None]):
            inv_L[i, j] = inv_L[i, j] @ inv_ii

# D = diag(A), L = -tril(A), U = -triu(A)
# (D - L)x(i+1) = Ux(i) + b
# x(i+1) = (D - L)^-1 * (Ux(i) + b)
@qd.kernel
def gauss_seidel_iteration():
    # solve Ux(i) + b
    for i in range(num_particles[None]):
        new_v[i] = b[i]
        for j in range(i):
            new_v[i] -= A[i, j] @ v[j]

    # solve (D - L)^-1 * (Ux(i) + b)
    for i in range(num_particles[None]):
        invL_v[i] = qd.Vector([0.0, 0.0])
        for j in range(i, num_particles[None]):
            invL_v[i] += inv_L[i, j] @ new_v[j]

    # update v
    for i in range(num_particles[None]):
        v[i] = invL_v[i]

def substep(beta = 1.0, iter_times = 10):
    update_mass_matrix()
    update_jacobi_matrix()
    update_A_matrix(beta)
    update_F_vector()
    update_b_vector()

    gauss_seidel_init()
    for step in range(iter_times):
        gauss_seidel_iteration()
    update_step()

init_mass_spring_system()

# stand-in for the interactive loop: scripted clicks, then a fixed number of frames
for j in range(3):
    for i in range(5):
        new_particle(0.5 + 0.07 * i, 0.75 - 0.07 * j, 2 if j else 1)
for frame in range(40):
    if not paused[None]:
        for step in range(10):
            substep(1.0, 10)
n = num_particles[None]
print('checksum num_particles', n)
print('checksum x_sum', repr(float(x.to_numpy()[:n].sum())))
print('checksum v_abs_sum', repr(float(np.abs(v.to_numpy()[:n]).sum())))
print('checksum rest_length_sum', repr(float(rest_length.to_numpy().sum())))

