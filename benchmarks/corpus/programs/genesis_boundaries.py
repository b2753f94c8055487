# corpus: genesis_boundaries
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/boundaries/boundaries.py
# license: Apache-2.0
# area: misc
# port: boundaries.py copied verbatim from class CubeBoundary on; `from genesis.utils.misc import *` dropped and brief -> stand-in (used by __repr__ only); `gs` -> stand-in namespace; stand-in particle set (2048 numpy-seeded particles, 50 steps under gravity) calling impose_pos_vel/impose_pos as the solvers do; checksum lines added
import math
import types

import numpy as np
import quadrants as qd

# ---- stand-in for `import genesis as gs`: what genesis.init(precision="32") sets on the CPU ----
gs = types.SimpleNamespace()
gs.qd_float, gs.np_float = qd.f32, np.float32
gs.qd_int, gs.np_int = qd.i32, np.int32
gs.qd_bool, gs.np_bool = qd.u1, np.bool_
gs.qd_vec2 = qd.types.vector(2, gs.qd_float)
gs.qd_vec3 = qd.types.vector(3, gs.qd_float)
gs.qd_vec4 = qd.types.vector(4, gs.qd_float)
gs.qd_vec6 = qd.types.vector(6, gs.qd_float)
gs.qd_vec7 = qd.types.vector(7, gs.qd_float)
gs.qd_vec11 = qd.types.vector(11, gs.qd_float)
gs.qd_mat3 = qd.types.matrix(3, 3, gs.qd_float)
gs.qd_mat4 = qd.types.matrix(4, 4, gs.qd_float)
gs.qd_ivec2 = qd.types.vector(2, gs.qd_int)
gs.qd_ivec3 = qd.types.vector(3, gs.qd_int)
gs.qd_ivec4 = qd.types.vector(4, gs.qd_int)
gs.EPS = float(max(1e-15, np.finfo(gs.np_float).eps))
gs.raise_exception = lambda msg="": (_ for _ in ()).throw(RuntimeError(msg))

# the qd.init kwargs genesis.init() passes on the CPU (arch cpu, debug off, seed unset)
qd.init(
    arch=qd.cpu,
    enable_fallback=False,
    debug=False,
    check_out_of_bound=False,
    force_scalarize_matrix=True,
    advanced_optimization=True,
    cfg_optimization=False,
    fast_math=True,
    default_ip=gs.qd_int,
    default_fp=gs.qd_float,
    unrolling_limit=100,
    cpu_max_num_threads=1,
)

def report(label, arr):
    a = np.asarray(arr)
    if a.dtype.kind in "iub":
        a = a.astype(np.int64)
        print(f"checksum {label}", int(a.sum()))
        print(f"checksum {label}_w", int((a.ravel() * (np.arange(a.size) % 97 + 1)).sum()))
    else:
        a = a.astype(np.float64)
        fin = np.isfinite(a)
        # signed sums of fields like pressure cancel to ~0 and are brittle under rtol: use magnitudes
        w = (np.arange(a.size) % 89 + 1).reshape(a.shape)
        print(f"checksum {label}_abs", repr(float(np.abs(a[fin]).sum())))
        print(f"checksum {label}_sq", repr(float(np.square(a[fin]).sum())))
        print(f"checksum {label}_wabs", repr(float(np.abs(a * w)[fin].sum())))
        if not fin.all():
            print(f"checksum {label}_nonfinite", int((~fin).sum()))


def brief(x):  # stand-in for genesis.utils.repr.brief (used by __repr__ only)
    return repr(x)


# ---- genesis/engine/boundaries/boundaries.py (verbatim from class CubeBoundary on) ----
@qd.data_oriented
class CubeBoundary:
    def __init__(self, lower, upper, restitution=0.0):
        self.restitution = restitution

        self.upper = np.array(upper, dtype=gs.np_float)
        self.lower = np.array(lower, dtype=gs.np_float)
        assert (self.upper >= self.lower).all()

        self.upper_qd = qd.Vector(upper, dt=gs.qd_float)
        self.lower_qd = qd.Vector(lower, dt=gs.qd_float)

    @qd.func
    def impose_pos_vel(self, pos, vel):
        for i in qd.static(range(3)):
            if pos[i] >= self.upper_qd[i] and vel[i] >= 0:
                vel[i] *= -self.restitution
            elif pos[i] <= self.lower_qd[i] and vel[i] <= 0:
                vel[i] *= -self.restitution

        pos = qd.max(qd.min(pos, self.upper_qd), self.lower_qd)

        return pos, vel

    @qd.func
    def impose_pos(self, pos):
        pos = qd.max(qd.min(pos, self.upper_qd), self.lower_qd)
        return pos

    def is_inside(self, pos):
        return np.all(pos < self.upper) and np.all(pos > self.lower)

    def __repr__(self):
        return (
            f"{brief(self)}\n"
            f"lower       : {brief(self.lower)}\n"
            f"upper       : {brief(self.upper)}\n"
            f"restitution : {brief(self.restitution)}"
        )


@qd.data_oriented
class FloorBoundary:
    def __init__(self, height, restitution=0.0):
        self.height = height
        self.restitution = restitution

    @qd.func
    def impose_pos_vel(self, pos, vel):
        if pos[2] <= self.height and vel[2] <= 0:
            vel[2] *= -self.restitution

        pos[2] = qd.max(pos[2], self.height)

        return pos, vel

    @qd.func
    def impose_pos(self, pos):
        pos[2] = qd.max(pos[2], self.height)
        return pos

    def __repr__(self):
        return f"{brief(self)}\nheight      : {brief(self.height)}\nrestitution : {brief(self.restitution)}"


# ---- stand-in driver: a particle set bounced inside the boundaries, as the MPM/SPH/PBD solvers call them ----
@qd.data_oriented
class StandInParticles:
    def __init__(self, n, cube, floor):
        self.n = n
        self.cube = cube
        self.floor = floor
        self.pos = qd.Vector.field(3, gs.qd_float, shape=n)
        self.vel = qd.Vector.field(3, gs.qd_float, shape=n)

    @qd.kernel
    def step(self, dt: qd.f32):
        for i in range(self.n):
            v = self.vel[i] + qd.Vector([0.0, 0.0, -9.8], dt=gs.qd_float) * dt
            p = self.pos[i] + v * dt
            p, v = self.cube.impose_pos_vel(p, v)
            p, v = self.floor.impose_pos_vel(p, v)
            if i % 3 == 0:
                p = self.cube.impose_pos(p)
                p = self.floor.impose_pos(p)
            self.pos[i] = p
            self.vel[i] = v


cube = CubeBoundary(lower=(-0.5, -0.4, -0.3), upper=(0.5, 0.4, 0.9), restitution=0.6)
floor = FloorBoundary(height=-0.1, restitution=0.3)
parts = StandInParticles(2048, cube, floor)
rng = np.random.default_rng(5)
parts.pos.from_numpy(rng.uniform(-0.45, 0.45, (2048, 3)).astype(np.float32))
parts.vel.from_numpy(rng.standard_normal((2048, 3)).astype(np.float32))
for s in range(50):
    parts.step(0.01)
print("checksum inside", int(sum(cube.is_inside(p) for p in parts.pos.to_numpy())))
report("pos", parts.pos.to_numpy())
report("vel", parts.vel.to_numpy())
