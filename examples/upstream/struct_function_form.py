# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/compound_types.md lines 313-315 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: qd.dataclass / qd.types.struct (qd.types.struct)
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)

N = 16
# <<< added

vec3 = qd.types.vector(3, qd.f32)
Particle = qd.types.struct(pos=vec3, vel=vec3, mass=qd.f32)
particles = Particle.field(shape=(N,))

# >>> added for the comparison (not upstream)
@qd.kernel
def step(dt: qd.f32) -> qd.f32:
    e = 0.0
    for i in range(N):
        p = particles[i]
        p.vel = qd.Vector([1.0, -i, 0.5 * i])
        p.mass = 2.0
        p.pos += dt * p.vel
        particles[i] = p
        e += 0.5 * p.mass * p.vel.norm_sqr()
    return e


print("energy", step(0.1))
print("pos", particles.pos.to_numpy().sum(axis=0).tolist())
# <<< added
