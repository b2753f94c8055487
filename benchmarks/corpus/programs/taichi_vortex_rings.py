# corpus: taichi_vortex_rings
# source: github:taichi-dev/taichi@ba0e81dce559fb63a5958bf82feb1d00c55c02fe python/taichi/examples/simulation/vortex_rings.py
# license: Apache-2.0
# area: fluids
# port: ti->qd; arch=qd.cpu; qd.random() in init_tracers() replaced by the numpy-seeded init_rand field; n_tracer 200000->20000 (time); GUI loop replaced by 50 frames of 4 substeps; checksum lines added
# C++ reference and tutorial (Chinese): https://zhuanlan.zhihu.com/p/26882619
import math

import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

eps = 0.01
dt = 0.1

n_vortex = 4
n_tracer = 20000

pos = qd.Vector.field(2, qd.f32, shape=n_vortex)
new_pos = qd.Vector.field(2, qd.f32, shape=n_vortex)
vort = qd.field(qd.f32, shape=n_vortex)

tracer = qd.Vector.field(2, qd.f32, shape=n_tracer)


@qd.func
def compute_u_single(p, i):
    r2 = (p - pos[i]).norm() ** 2
    uv = qd.Vector([pos[i].y - p.y, p.x - pos[i].x])
    return vort[i] * uv / (r2 * math.pi) * 0.5 * (1.0 - qd.exp(-r2 / eps**2))


@qd.func
def compute_u_full(p):
    u = qd.Vector([0.0, 0.0])
    for i in range(n_vortex):
        u += compute_u_single(p, i)
    return u


@qd.kernel
def integrate_vortex():
    for i in range(n_vortex):
        v = qd.Vector([0.0, 0.0])
        for j in range(n_vortex):
            if i != j:
                v += compute_u_single(pos[i], j)
        new_pos[i] = pos[i] + dt * v

    for i in range(n_vortex):
        pos[i] = new_pos[i]


@qd.kernel
def advect():
    for i in range(n_tracer):
        # Ralston's third-order method
        p = tracer[i]
        v1 = compute_u_full(p)
        v2 = compute_u_full(p + v1 * dt * 0.5)
        v3 = compute_u_full(p + v2 * dt * 0.75)
        tracer[i] += (2 / 9 * v1 + 1 / 3 * v2 + 4 / 9 * v3) * dt


pos[0] = [0, 1]
pos[1] = [0, -1]
pos[2] = [0, 0.3]
pos[3] = [0, -0.3]
vort[0] = 1
vort[1] = -1
vort[2] = 1
vort[3] = -1


init_rand = qd.field(float, (n_tracer, 2))
init_rand.from_numpy(np.random.default_rng(0).random((n_tracer, 2), dtype=np.float32))


@qd.kernel
def init_tracers():
    for i in range(n_tracer):
        tracer[i] = [init_rand[i, 0] - 0.5, init_rand[i, 1] * 3 - 1.5]


def main():
    init_tracers()
    for frame in range(50):
        for i in range(4):  # substeps
            advect()
            integrate_vortex()
    tr = tracer.to_numpy().astype(np.float64)
    print("checksum tracer_sum", float(tr.sum()))
    print("checksum tracer_abs_sum", float(np.abs(tr).sum()))
    print("checksum pos_sum", float(pos.to_numpy().astype(np.float64).sum()))
    print("checksum pos0x", float(pos[0][0]))


if __name__ == "__main__":
    main()
