# corpus: genesis_force_fields
# source: github:Genesis-Embodied-AI/Genesis@7bf5f6a7bf2946efc3a1e93667700011456078b5 genesis/engine/force_fields.py
# license: Apache-2.0
# area: misc
# port: force_fields.py copied verbatim from class ForceField on (Constant, Wind, Point, Drag, Vortex, Turbulence with PerlinNoiseField; Noise and Custom defined but unused: Noise draws qd.random); RBC repr base -> empty stand-in; `gs` -> stand-in namespace; stand-in particle set (1024 numpy-seeded particles, 20 steps) summing get_acc of the fields in a qd.static loop as the simulator does; checksum lines added
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


class RBC:  # stand-in for genesis.repr_base.RBC (repr helpers only)
    pass


# ---- genesis/engine/force_fields.py (verbatim from class ForceField on) ----
@qd.data_oriented
class ForceField(RBC):
    """
    Base class for all force fields. This class should not be used directly.

    Note
    ----
    It's called `ForceField`, but it's actually an acceleration field, as force doesn't have a notion of spatial density.
    """

    def __init__(self):
        self._active = qd.field(gs.qd_bool, shape=())
        self._active[None] = False

    def activate(self):
        """
        Activate the force field.
        """
        self._active[None] = True

    def deactivate(self):
        """
        Deactivate the force field.
        """
        self._active[None] = False

    @qd.func
    def get_acc(self, pos, vel, t, i):
        acc = qd.Vector.zero(gs.qd_float, 3)
        if self._active[None]:
            acc = self._get_acc(pos, vel, t, i)
        return acc

    @property
    def active(self):
        """
        Whether the force field is active.
        """
        return self._active[None]


class Constant(ForceField):
    """
    Constant force field with a static acceleration everywhere.

    Parameters:
    -----------
    direction: array_like, shape=(3,)
        The direction of the force (acceleration). Will be normalized.
    strength: float
        The strength of the force (acceleration).
    """

    def __init__(self, direction=(1, 0, 0), strength=1.0):
        super().__init__()

        direction = np.array(direction)
        if direction.shape != (3,):
            raise ValueError("direction must have shape (3,)")

        self._direction = direction / np.linalg.norm(direction)
        self._strength = strength
        self._acc_qd = qd.Vector(self._direction * self._strength, dt=gs.qd_float)

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        return self._acc_qd

    @property
    def direction(self):
        return self._direction

    @property
    def strength(self):
        return self._strength


class Wind(ForceField):
    """
    Wind force field with a static acceleration in a cylindrical region.

    Parameters:
    -----------
    direction: array_like, shape=(3,)
        The direction of the wind. Will be normalized.
    strength: float
        The strength of the wind.
    radius: float
        The radius of the cylinder.
    center: array_like, shape=(3,)
        The center of the cylinder.
    """

    def __init__(self, direction=(1, 0, 0), strength=1.0, radius=1, center=(0, 0, 0)):
        super().__init__()

        direction = np.array(direction)
        if direction.shape != (3,):
            raise ValueError("direction must have shape (3,)")

        center = np.array(center)
        if center.shape != (3,):
            raise ValueError("center must have shape (3,)")

        self._center = center
        self._direction = direction / np.linalg.norm(direction)
        self._strength = strength
        self._radius = radius

        self._direction_qd = qd.Vector(self._direction, dt=gs.qd_float)
        self._center_qd = qd.Vector(self._center, dt=gs.qd_float)
        self._acc_qd = qd.Vector(self._direction * self._strength, dt=gs.qd_float)

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        # distance to the center of the cylinder pointing in the direction of the wind
        dist = (pos - self._center_qd).cross(self._direction_qd).norm()
        acc = self._acc_qd
        if dist > self._radius:
            acc = qd.Vector.zero(gs.qd_float, 3)
        return acc

    @property
    def direction(self):
        return self._direction

    @property
    def strength(self):
        return self._strength

    @property
    def radius(self):
        return self._radius

    @property
    def center(self):
        return self._center


class Point(ForceField):
    """
    Point force field gives a constant force towards (positive strength) or away from (negative strength) the point.

    Parameters:
    -----------
    strength: float
        The strength of the wind.
    position: array_like, shape=(3,)
        The position of the point.
    flow: float
        The flow of the force field.
    falloff_pow: float
        The power of the falloff.
    """

    def __init__(self, strength=1.0, position=(0, 0, 0), falloff_pow=0.0, flow=1.0):
        super().__init__()

        position = np.array(position)
        if position.shape != (3,):
            raise ValueError("position must have shape (3,)")

        self._strength = strength
        self._position = position
        self._falloff_pow = falloff_pow
        self._flow = flow

        self._position_qd = qd.Vector(self._position, dt=gs.qd_float)

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        relative_pos = pos - self._position_qd
        radius = relative_pos.norm(gs.EPS)
        direction = relative_pos / radius
        falloff = 1 / (radius + 1.0) ** self._falloff_pow
        acc = self._strength * direction

        # flow
        acc += (acc - vel) * self._flow

        acc *= falloff

        return acc

    @property
    def strength(self):
        return self._strength

    @property
    def position(self):
        return self._position


class Drag(ForceField):
    """
    Drag force field gives a force opposite to the velocity.

    Parameters:
    -----------
    linear: float
        The linear drag coefficient.
    quadratic: float
        The quadratic drag coefficient.
    """

    def __init__(self, linear=0.0, quadratic=0.0):
        super().__init__()

        self._linear = linear
        self._quadratic = quadratic

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        return -self._linear * vel - self._quadratic * vel.norm() * vel

    @property
    def linear(self):
        return self._linear

    @property
    def quadratic(self):
        return self._quadratic


class Noise(ForceField):
    """
    Noise force field samples random noise at each point.
    """

    def __init__(self, strength=1.0):
        super().__init__()

        self._strength = strength

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        noise = (
            qd.Vector(
                [
                    qd.random(gs.qd_float),
                    qd.random(gs.qd_float),
                    qd.random(gs.qd_float),
                ],
                dt=gs.qd_float,
            )
            * 2
            - 1
        )
        return noise * self._strength

    @property
    def strength(self):
        return self._strength


class Vortex(ForceField):
    """
    Vortex force field revolving around z-axis.

    Parameters:
    -----------
    strength_perpendicular: float
        The strength of the vortex flow in the perpendicular direction. Positive for counterclockwise, negative for clockwise.
    strength_radial: float
        The strength of the vortex flow in the radial direction. Positive for inward, negative for outward.
    center: array_like, shape=(3,)
        The center of the vortex.
    falloff_pow: float
        The power of the falloff.
    falloff_min: float
        The minimum distance (in meters) for the falloff. Under this distance, the force is effective with full strength.
    falloff_max: float
        The maximum distance (in meters) for the falloff. Above this distance, the force is ineffective.
    """

    def __init__(
        self,
        direction=(0.0, 0.0, 1.0),
        center=(0.0, 0.0, 0.0),
        strength_perpendicular=20.0,
        strength_radial=0.0,
        falloff_pow=2.0,
        falloff_min=0.01,
        falloff_max=np.inf,
        damping=0.0,
    ):
        super().__init__()

        direction = np.array(direction)
        if direction.shape != (3,):
            raise ValueError("direction must have shape (3,)")

        center = np.array(center)
        if center.shape != (3,):
            raise ValueError("center must have shape (3,)")

        self._center = center
        self._direction = direction / np.linalg.norm(direction)
        self._damping = damping

        self._strength_perpendicular = strength_perpendicular
        self._strength_radial = strength_radial

        self._falloff_pow = falloff_pow
        self._falloff_min = falloff_min
        self._falloff_max = falloff_max

        self._direction_qd = qd.Vector(self._direction, dt=gs.qd_float)
        self._center_qd = qd.Vector(self._center, dt=gs.qd_float)

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        relative_pos = qd.Vector([pos[0] - self._center_qd[0], pos[1] - self._center_qd[1]])
        radius = relative_pos.norm()
        perpendicular = qd.Vector([-relative_pos[1], relative_pos[0], 0.0], dt=gs.qd_float)
        radial = -qd.Vector([relative_pos[0], relative_pos[1], 0.0], dt=gs.qd_float)

        falloff = gs.qd_float(0.0)
        if radius < self._falloff_min:
            falloff = 1.0
        elif radius < self._falloff_max:
            falloff = 1 / (radius - self._falloff_min + 1.0) ** self._falloff_pow
        else:
            falloff = 0.0

        acceleration = falloff * (self._strength_perpendicular * perpendicular + self._strength_radial * radial)

        acceleration -= self._damping * vel

        return acceleration

    @property
    def direction(self):
        return self._direction

    @property
    def radius(self):
        return self._radius

    @property
    def center(self):
        return self._center

    @property
    def strength_perpendicular(self):
        return self._strength_perpendicular

    @property
    def strength_radial(self):
        return self._strength_radial

    @property
    def falloff_pow(self):
        return self._falloff_pow

    @property
    def falloff_min(self):
        return self._falloff_min

    @property
    def falloff_max(self):
        return self._falloff_max


class Turbulence(ForceField):
    """
    Turbulence force field generated using Perlin noise.

    Parameters:
    -----------
    strength: float
        The strength of the turbulence.
    frequency: float
        The spatial frequency of repeated patterns used for Perlin noise.
    flow: float
        The flow of the turbulence.
    seed: int | None
        The seed for the Perlin noise.
    """

    def __init__(self, strength=1.0, frequency=3, flow=0.0, seed=None):
        super().__init__()

        self._strength = strength
        self._frequency = frequency
        self._flow = flow

        self._perlin_x = PerlinNoiseField(frequency=self._frequency, seed=seed, seed_offset=0)
        self._perlin_y = PerlinNoiseField(frequency=self._frequency, seed=seed, seed_offset=1)
        self._perlin_z = PerlinNoiseField(frequency=self._frequency, seed=seed, seed_offset=2)

    @qd.func
    def _get_acc(self, pos, vel, t, i):
        acc = qd.Vector(
            [
                self._perlin_x._noise(pos[0], pos[1], pos[2]),
                self._perlin_y._noise(pos[0], pos[1], pos[2]),
                self._perlin_z._noise(pos[0], pos[1], pos[2]),
            ],
            dt=gs.qd_float,
        )
        acc *= self._strength

        # flow
        acc += (acc - vel) * self._flow
        return acc

    @property
    def strength(self):
        return self._strength

    @property
    def frequency(self):
        return self._frequency


class Custom(ForceField):
    """
    Custom force field with a user-defined force(acceleration) function `f(pos, vel, t, i)`.

    Parameters:
    -----------
    func: A callable Quadrants func (a python function wrapped by `@qd.func`)
        The acceleration function. Must have the signature `f(pos: qd.types.vector(3), vel: qd.types.vector(3), t: qd.f32) -> qd.types.vector(3)`.
    """

    def __init__(self, func):
        super().__init__()

        self.get_acc = func


@qd.data_oriented
class PerlinNoiseField:
    """
    Perlin noise field for generating 3D noise.
    Each PerlinNoiseField object has will create a different noise field.
    """

    def __init__(self, wrap_size=256, frequency=10, seed=None, seed_offset=0):
        self._wrap_size = wrap_size
        self._permutation = np.arange(self._wrap_size, dtype=np.int32)
        self._frequency = frequency
        if seed is not None:
            state = np.random.get_state()
            np.random.seed(seed + seed_offset)
            np.random.shuffle(self._permutation)
            np.random.set_state(state)

        self._permutation_qd = qd.field(qd.i32, shape=(self._wrap_size * 2,))
        self._permutation_qd.from_numpy(np.concatenate([self._permutation, self._permutation]))

    @qd.func
    def _fade(self, t):
        """Fade function for smoothing the interpolation."""
        return t * t * t * (t * (t * 6 - 15) + 10)

    @qd.func
    def _lerp(self, t, a, b):
        """Linear interpolation between a and b."""
        return a + t * (b - a)

    @qd.func
    def _grad(self, hash, x, y, z):
        """Calculate dot product between gradient vector and distance vector."""
        h = hash & 15  # Convert low 4 bits of hash code
        u = x
        if h >= 8:
            u = y

        v = y
        if h >= 4:
            v = z
            if h == 12 or h == 14:
                v = x

        return (u if (h & 1) == 0 else -u) + (v if (h & 2) == 0 else -v)

    @qd.func
    def _noise(self, x, y, z):
        x *= self._frequency
        y *= self._frequency
        z *= self._frequency

        # Find unit cube that contains the point
        X = gs.qd_int(qd.floor(x)) & (self._wrap_size - 1)
        Y = gs.qd_int(qd.floor(y)) & (self._wrap_size - 1)
        Z = gs.qd_int(qd.floor(z)) & (self._wrap_size - 1)

        # Find relative x, y, z of point in the cube
        x -= qd.floor(x)
        y -= qd.floor(y)
        z -= qd.floor(z)

        # Compute fade curves for each coordinate
        u = self._fade(x)
        v = self._fade(y)
        w = self._fade(z)

        # Hash coordinates of the 8 cube corners
        A = self._permutation_qd[X] + Y
        AA = self._permutation_qd[A] + Z
        AB = self._permutation_qd[A + 1] + Z
        B = self._permutation_qd[X + 1] + Y
        BA = self._permutation_qd[B] + Z
        BB = self._permutation_qd[B + 1] + Z

        # Add blended results from the 8 corners of the cube
        return self._lerp(
            w,
            self._lerp(
                v,
                self._lerp(
                    u,
                    self._grad(self._permutation_qd[AA], x, y, z),
                    self._grad(self._permutation_qd[BA], x - 1, y, z),
                ),
                self._lerp(
                    u,
                    self._grad(self._permutation_qd[AB], x, y - 1, z),
                    self._grad(self._permutation_qd[BB], x - 1, y - 1, z),
                ),
            ),
            self._lerp(
                v,
                self._lerp(
                    u,
                    self._grad(self._permutation_qd[AA + 1], x, y, z - 1),
                    self._grad(self._permutation_qd[BA + 1], x - 1, y, z - 1),
                ),
                self._lerp(
                    u,
                    self._grad(self._permutation_qd[AB + 1], x, y - 1, z - 1),
                    self._grad(self._permutation_qd[BB + 1], x - 1, y - 1, z - 1),
                ),
            ),
        )


# ---- stand-in driver: particles advanced under the sum of active force fields, as the simulator does ----
@qd.data_oriented
class StandInParticles:
    def __init__(self, n, force_fields):
        self.n = n
        self._ffs = force_fields
        self.pos = qd.Vector.field(3, gs.qd_float, shape=n)
        self.vel = qd.Vector.field(3, gs.qd_float, shape=n)
        self.acc = qd.Vector.field(3, gs.qd_float, shape=n)

    @qd.kernel
    def step(self, t: qd.f32, dt: qd.f32):
        for i in range(self.n):
            acc = qd.Vector.zero(gs.qd_float, 3)
            for k in qd.static(range(len(self._ffs))):
                acc += self._ffs[k].get_acc(self.pos[i], self.vel[i], t, i)
            self.acc[i] = acc
            self.vel[i] += acc * dt
            self.pos[i] += self.vel[i] * dt


ffs = [
    Constant(direction=(0.0, 0.0, -1.0), strength=9.8),
    Wind(direction=(1.0, 0.0, 0.0), strength=2.0, radius=0.6, center=(0.1, 0.0, 0.0)),
    Point(strength=-1.5, position=(0.2, 0.1, 0.3), falloff_pow=1.0, flow=0.5),
    Drag(linear=0.3, quadratic=0.1),
    Vortex(strength_perpendicular=5.0, strength_radial=1.0, falloff_max=2.0, damping=0.05),
    Turbulence(strength=0.8, frequency=3, flow=0.2, seed=5),
]
for ff in ffs:
    ff.activate()
ffs[3].deactivate()  # one inactive field, to exercise the _active check
parts = StandInParticles(1024, ffs)
rng = np.random.default_rng(3)
parts.pos.from_numpy(rng.uniform(-1.0, 1.0, (1024, 3)).astype(np.float32))
parts.vel.from_numpy((0.1 * rng.standard_normal((1024, 3))).astype(np.float32))
for s in range(20):
    parts.step(s * 0.01, 0.01)
report("pos", parts.pos.to_numpy())
report("vel", parts.vel.to_numpy())
report("acc", parts.acc.to_numpy())
