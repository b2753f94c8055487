# corpus: taichi_two_stream_instability
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/two_stream_instability.py
# license: Apache-2.0
# area: misc
# port: ti->qd; arch=qd.cpu, cpu_max_num_threads=1 (float atomics in a deterministic order); qd.randn() in initialize() replaced by the numpy-seeded (standard normal) init_randn field (numpy imported as numpy: the program names an int `np`); GUI loop replaced by 40 frames of `substepping` steps, vx_pos() kept; checksum lines added
# Authored by Luhuai Jiao
# This is a 1D simulation of "two-stream instability" in Plasma Physicis.
# Some settings of the grids and particles are taken from "Introduction to Computational Plasma Physics"(ISBN: 9787030563675)

import numpy
import quadrants as qd

qd.init(arch=qd.cpu, cpu_max_num_threads=1)  # Try to run on GPU
PI = 3.141592653589793
L = 8 * PI  # simulation domain size
dt = 0.1  # time step
substepping = 8
ng = 32  # number of grids
np = 16384  # numer of particles
vb = 1.0  # beam-velocity, one is vb, the other is -vb
vt = 0.3  # thermal velocity
wp = 1  # Plasma frequence
qm = -1  # charge-mass ratio
q = wp * wp / (qm * np / L)  # charge of a particle
rho_back = -q * np / L  # background charge density
dx = L / ng  # grid spacing
inv_dx = 1.0 / dx
x = qd.Vector.field(1, qd.f32, np)  # position
v = qd.Vector.field(1, qd.f32, np)  # velocity
rho = qd.Vector.field(1, qd.f32, ng)  # charge density
e = qd.Vector.field(1, qd.f32, ng)  # electric fields
# to show x-vx on the screen
v_x_pos1 = qd.Vector.field(2, qd.f32, int(np / 2))
v_x_pos2 = qd.Vector.field(2, qd.f32, int(np / 2))


init_randn = qd.field(qd.f32, np)
init_randn.from_numpy(numpy.random.default_rng(0).standard_normal(np).astype(numpy.float32))


@qd.kernel
def initialize():
    for p in x:
        x[p].x = (p + 1) * L / np
        v[p].x = vt * init_randn[p] + (-1) ** p * vb  # two streams


@qd.kernel
def substep():
    for p in x:
        x[p] += v[p] * dt
        if x[p].x >= L:  # periodic boundary condition
            x[p] += -L
        if x[p].x < 0:
            x[p] += L
    rho.fill(rho_back)  # fill rho with background charge density
    for p in x:  # Particle state update and scatter to grid (P2G)
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - 0.5 - base.cast(float)
        rho[base] += (1.0 - fx) * q * inv_dx
        if base[0] < ng - 1:
            rho[base + 1] += fx * q * inv_dx
    e.fill(0.0)
    qd.loop_config(serialize=True)
    for i in range(ng):  # compute electric fields
        if i == 0:
            e[i] = rho[i] * dx * 0.5
        else:
            e[i] = e[i - 1] + (rho[i - 1] + rho[i]) * dx * 0.5
    s = 0.0
    for i in e:
        s += e[i].x
    for i in e:
        e[i] += -s / ng
    for p in v:  # G2P
        base = (x[p] * inv_dx - 0.5).cast(int)
        fx = x[p] * inv_dx - 0.5 - base.cast(float)
        a = e[base] * (1.0 - fx) * qm
        if base[0] < ng - 1:
            a += e[base + 1] * fx * qm  # compute electric force
        v[p] += a * dt


@qd.kernel
def vx_pos():  # to show x-vx on the screen
    for p in x:
        if p % 2:
            v_x_pos1[int((p - 1) / 2)].x = x[p].x / L
            v_x_pos1[int((p - 1) / 2)].y = (v[p].x) / 10 + 0.5
        else:
            v_x_pos2[int(p / 2)].x = x[p].x / L
            v_x_pos2[int(p / 2)].y = (v[p].x) / 10 + 0.5


def main():
    initialize()
    for frame in range(40):
        for s in range(substepping):
            substep()
        vx_pos()
    xs, vs = x.to_numpy().astype(numpy.float64), v.to_numpy().astype(numpy.float64)
    print("checksum x_sum", float(xs.sum()))
    print("checksum v_abs_sum", float(numpy.abs(vs).sum()))
    print("checksum e_abs_sum", float(numpy.abs(e.to_numpy().astype(numpy.float64)).sum()))
    print("checksum vx_pos1_sum", float(v_x_pos1.to_numpy().astype(numpy.float64).sum()))


if __name__ == "__main__":
    main()
