# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/compound_types.md lines 275-284 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: qd.dataclass / qd.types.struct (AOS layout)
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)

N = 16
# <<< added

@qd.dataclass
class Particle:
    pos: qd.types.vector(3, qd.f32)
    vel: qd.types.vector(3, qd.f32)
    mass: qd.f32

# AOS layout: each element of `particles` is a (pos, vel, mass) cell contiguous in memory.
# Only possible because Particle is a `@qd.dataclass`. `@qd.data_oriented` and
# `dataclasses.dataclass` containers can't be the element type of a tensor.
particles = Particle.field(shape=(N,), layout=qd.Layout.AOS)

# >>> added for the comparison (not upstream)
@qd.kernel
def fill() -> None:
    for i in range(N):
        particles[i].pos = qd.Vector([i, 2 * i, 3 * i])
        particles[i].mass = 0.5 * i


fill()
print("pos", particles.pos.to_numpy().sum(axis=0).tolist(), "mass", particles.mass.to_numpy().sum())
# <<< added
