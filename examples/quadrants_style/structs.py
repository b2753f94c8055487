"""Particles and spheres as structs: `qd.types.struct`, `@qd.dataclass` with methods, `qd.Struct.field`.

Shows: a struct type's field (one field per member), `f[i] = Particle(...)` from a `@qd.func`
returning a struct, `p = f[i]` (a copy), `p.pos += ...`, `f[i].vel.y -= ...` and `f[i].mass += ...`
on elements (atomic in the parallel loop), dataclass methods (`spheres[s].contains(p)`), a struct
built with some members left out (zero), a 0-d `qd.Struct.field` counter, and `to_numpy()` as a
dict of arrays.
"""
import numpy as np

import quadrants as qd

qd.init(arch=qd.cpu)

vec3 = qd.math.vec3
n = 16
Particle = qd.types.struct(pos=vec3, vel=vec3, mass=qd.f32)
particles = Particle.field(shape=(n,))

@qd.dataclass
class Sphere:
    center: vec3
    radius: qd.f32

    @qd.func
    def area(self):
        return 4 * 3.14159 * self.radius * self.radius

    @qd.func
    def contains(self, p):
        return (p - self.center).norm() < self.radius

spheres = Sphere.field(shape=4)
state = qd.Struct.field({"t": qd.f32, "count": qd.i32}, shape=())
out = qd.field(qd.f32, shape=(n, 4))

@qd.func
def spawn(i):
    return Particle(pos=vec3(i * 0.1, 0.0, 0.0), vel=vec3(0.0, 1.0, 0.5 * i), mass=1.0 + i)

@qd.kernel
def init():
    for i in particles:
        particles[i] = spawn(i)
    for s in spheres:
        spheres[s].center = vec3(s * 0.4, 0.1, 0.0)
        spheres[s].radius = 0.3 + 0.1 * s

@qd.kernel
def step(dt: qd.f32):
    for i in particles:
        p = particles[i]
        p.pos += dt * p.vel
        particles[i].pos = p.pos
        particles[i].vel.y -= dt * 9.8
        particles[i].mass += 0.5
        state[None].count += 1
        inside = 0
        for s in range(4):
            if spheres[s].contains(p.pos):
                inside += 1
        out[i, 0] = inside
        out[i, 1] = spheres[i % 4].area()
        q = Particle(vel=p.vel)
        out[i, 2] = q.mass + q.vel.z
        out[i, 3] = particles[i].mass
    state[None].t += dt


def main():
    init()
    for _ in range(5):
        step(0.05)
    d = particles.to_numpy()
    return {"pos": d["pos"], "vel": d["vel"], "mass": d["mass"], "out": out.to_numpy(),
            "t": np.float32(state[None].t), "count": np.int32(state[None].count),
            "radius": spheres.to_numpy()["radius"]}


if __name__ == "__main__":
    for k, val in main().items():
        print(k, np.asarray(val).ravel()[:6])
