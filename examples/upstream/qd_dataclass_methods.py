# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/compound_types.md lines 290-307 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: qd.dataclass / qd.types.struct (methods)
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

    @qd.func
    def kinetic_energy(self):
        return 0.5 * self.mass * self.vel.dot(self.vel)

particles = Particle.field(shape=(N,))

@qd.kernel
def total_ke() -> qd.f32:
    total = 0.0
    for i in range(N):
        total += particles[i].kinetic_energy()
    return total

# >>> added for the comparison (not upstream)
import numpy as np

@qd.kernel
def init_particles() -> None:
    for i in range(N):
        particles[i].mass = 1.0 + i
        particles[i].vel = qd.Vector([i * 0.5, 1.0, -0.25 * i])
        particles[i].pos = particles[i].vel * 2.0


init_particles()
print("total_ke", total_ke())
print("mass", particles.mass.to_numpy().tolist())
# <<< added
