"""Softened gravity between a few dozen bodies: the `eps` guard of `norm` and `normalized`.

Shows: `r.norm(eps)` (eps added under the square root, Plummer softening), `r.normalized(eps)`
(eps added to the length), `r.norm_inv(eps)`, `qd.math.length`, an all-pairs force loop inside a
struct-for, symplectic Euler steps, and a potential-energy reduction into a 0-d field.
Quadrants' n-body examples soften with this form; ignoring eps changes every result.
"""
import numpy as np

import quadrants as qd

N = 48
SOFT = 0.05
DT = 1e-3

qd.init(arch=qd.cpu)

x = qd.Vector.field(2, dtype=qd.f32, shape=N)
v = qd.Vector.field(2, dtype=qd.f32, shape=N)
m = qd.field(qd.f32, shape=N)
potential = qd.field(qd.f32, shape=())
closest = qd.field(qd.f32, shape=())


@qd.kernel
def seed(p0: qd.types.ndarray(dtype=qd.f32, ndim=2), mass: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in x:
        x[i] = qd.math.vec2(p0[i, 0], p0[i, 1])
        v[i] = qd.math.vec2(-p0[i, 1], p0[i, 0]) * 0.3
        m[i] = mass[i]


@qd.kernel
def step(dt: qd.f32):
    for i in x:
        acc = qd.math.vec2(0.0, 0.0)
        for j in range(N):
            if i != j:
                r = x[j] - x[i]
                d = r.norm(SOFT * SOFT)
                acc += m[j] * r / (d * d * d)
        v[i] += dt * acc
    for i in x:
        x[i] += dt * v[i]


@qd.kernel
def measure():
    potential[None] = 0.0
    closest[None] = 1e9
    for i in x:
        for j in range(N):
            if i < j:
                r = x[j] - x[i]
                potential[None] += -m[i] * m[j] * r.norm_inv(eps=SOFT * SOFT)
                qd.atomic_min(closest[None], qd.math.length(r))


@qd.kernel
def directions(out: qd.types.ndarray(dtype=qd.f32, ndim=2)):
    for i in x:
        n = (x[(i + 1) % N] - x[i]).normalized(0.5)
        out[i, 0] = n.x
        out[i, 1] = n.y


def main():
    rng = np.random.default_rng(11)
    p0 = rng.uniform(-1.0, 1.0, (N, 2)).astype(np.float32)
    mass = rng.uniform(0.5, 1.5, N).astype(np.float32)
    seed(p0, mass)
    pot = []
    for _ in range(40):
        step(DT)
        measure()
        pot.append(potential[None])
    dirs = np.zeros((N, 2), np.float32)
    directions(dirs)
    return {"x": x.to_numpy(), "v": v.to_numpy(), "potential": np.array(pot, np.float32),
            "closest": np.float32(closest[None]), "directions": dirs}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
