# corpus: games201hw_rk4_mass_spring
# source: github:g1n0st/GAMES201@4d5330858a2b418d433309c96c9874cb1beb61c4 hw1/mass-spring/explicit/runge_kutta_method.py
# license: NOASSERTION
# area: solids
# port: ti->qd; the modules it imports (mass_spring_framework.py) inlined in import order, 'from x import *' and sys.path lines dropped; pre-1.0 Taichi names renamed as Taichi itself did (ti.var(...) -> qd.field(...), ti.Vector(n, dt=) -> qd.Vector.field(n, dtype=), ti.Matrix(n, m, dt=) -> qd.Matrix.field(n, m, dtype=)); qd.init(arch=qd.cpu) keeping debug=False; GUI (process_input/process_output) removed, the interactive loop replaced by 15 scripted new_particle clicks on a 5x3 lattice (top row fixed) and 150 frames of 10 substeps; checksum lines added
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

# ===== inlined: hw1/mass-spring/explicit/runge_kutta_method.py =====
# author: g1n0st
# Runge-Kutta Method for Mass-Spring System
import sys

v2 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
v3 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
v4 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)

a1 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
a2 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
a3 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
a4 = qd.Vector.field(2, dtype = qd.f32, shape = max_particles)
    
@qd.kernel
def substep():
    # compute force and new velocity
    n = num_particles[None]

    for i in range(n):
        v[i] *= qd.exp(-dt * damping[None]) # damping

    #1
    for i in range(n):
        a1[i] = gravity * particle_mass
        for j in range(n):
            if rest_length[i, j] != 0:
                x_ij = x[i] - x[j]
                a1[i] += -stiffness[None] * (x_ij.norm() - rest_length[i, j]) * x_ij.normalized()

    #2
    for i in range(n):
        v2[i] = v[i] + (dt / 2) * a1[i]
        
    for i in range(n):
        a2[i] = gravity * particle_mass
        for j in range(n):
            if rest_length[i, j] != 0:
                x_ij = x[i] - x[j] + (dt / 2) * (v[i] - v[j])
                a2[i] += -stiffness[None] * (x_ij.norm() - rest_length[i, j]) * x_ij.normalized()

    #3
    for i in range(n):
        v3[i] = v[i] + (dt / 2) * a2[i]
        
    for i in range(n):
        a3[i] = gravity * particle_mass
        for j in range(n):
            if rest_length[i, j] != 0:
                x_ij = x[i] - x[j] + (dt / 2) * (v2[i] - v2[j])
                a3[i] += -stiffness[None] * (x_ij.norm() - rest_length[i, j]) * x_ij.normalized()

    #4
    for i in range(n):
        v4[i] = v[i] + dt * a3[i]
        
    for i in range(n):
        a4[i] = gravity * particle_mass
        for j in range(n):
            if rest_length[i, j] != 0:
                x_ij = x[i] - x[j] + dt * (v3[i] - v3[j])
                a4[i] += -stiffness[None] * (x_ij.norm() - rest_length[i, j]) * x_ij.normalized()

    collide_with_ground()

    for i in range(n):
        x[i] += (dt / 6) * ( v[i] + 2 * v2[i] + 2 * v3[i] + v4[i])
        v[i] += (dt / 6) * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]) / particle_mass

init_mass_spring_system()

# stand-in for the interactive loop: scripted clicks, then a fixed number of frames
for j in range(3):
    for i in range(5):
        new_particle(0.5 + 0.07 * i, 0.75 - 0.07 * j, 2 if j else 1)
for frame in range(150):
    if not paused[None]:
        for step in range(10):
            substep()
n = num_particles[None]
print('checksum num_particles', n)
print('checksum x_sum', repr(float(x.to_numpy()[:n].sum())))
print('checksum v_abs_sum', repr(float(np.abs(v.to_numpy()[:n]).sum())))
print('checksum rest_length_sum', repr(float(rest_length.to_numpy().sum())))

