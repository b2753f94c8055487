"""Particles in a box: vec2 fields, struct-for, `qd.func`s with defaults, an energy reduction.

Shows: `qd.Vector.field` / `qd.field(qd.math.vec2, ...)`, a struct-for `for i in x`, vector
arithmetic (`norm`, `dot`, component access `.x`/`.y`), `@qd.func` with default and keyword
arguments, `qd.atomic_add` into a 0-d field and `+=` into a 0-d field, `qd.static` constants.
"""
import numpy as np

import quadrants as qd

N = 256
DT = 0.01
BOX = 1.0

qd.init(arch=qd.cpu)

pos = qd.Vector.field(2, dtype=qd.f32, shape=N)
vel = qd.field(qd.math.vec2, shape=N)
energy = qd.field(qd.f32, shape=())
bounces = qd.field(qd.i32, shape=())


@qd.func
def gravity(p, g: qd.f32 = -9.8, drag: qd.f32 = 0.0):
    return qd.math.vec2(-drag * p.x, g - drag * p.y)


@qd.func
def reflect(p: qd.f32, v: qd.f32, lo: qd.f32 = 0.0, hi: qd.f32 = BOX):
    hit = 0
    if p < lo:
        p = 2 * lo - p
        v = -v
        hit = 1
    elif p > hi:
        p = 2 * hi - p
        v = -v
        hit = 1
    return p, v, hit


@qd.kernel
def seed(p0: qd.types.ndarray(dtype=qd.f32, ndim=2), v0: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for i in pos:
        pos[i] = qd.math.vec2(p0[i, 0], p0[i, 1])
        vel[i] = [v0[i, 0], v0[i, 1]]


@qd.kernel
def step(dt: qd.f32):
    for i in pos:
        v = vel[i] + dt * gravity(vel[i], drag=0.1)
        p = pos[i] + dt * v
        px, vx, hx = reflect(p.x, v.x)
        py, vy, hy = reflect(p[1], v[1], hi=qd.static(BOX))
        pos[i] = qd.math.vec2(px, py)
        vel[i] = qd.math.vec2(vx, vy)
        if hx + hy > 0:
            qd.atomic_add(bounces[None], hx + hy)


@qd.kernel
def measure():
    energy[None] = 0.0
    for i in vel:
        v = vel[i]
        energy[None] += 0.5 * v.dot(v) + 9.8 * pos[i].y


@qd.kernel
def max_speed() -> qd.f32:
    m = 0.0
    for i in vel:
        qd.atomic_max(m, vel[i].norm())
    return m


def main():
    rng = np.random.default_rng(7)
    p0 = rng.uniform(0.1, 0.9, (N, 2)).astype(np.float32)
    v0 = rng.uniform(-1.0, 1.0, (N, 2)).astype(np.float32)
    seed(p0, v0)
    energies = []
    for _ in range(50):
        step(DT)
        measure()
        energies.append(energy[None])
    return {"pos": pos.to_numpy(), "vel": vel.to_numpy(), "energy": np.array(energies, np.float32),
            "bounces": np.int32(bounces[None]), "max_speed": np.float32(max_speed())}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
