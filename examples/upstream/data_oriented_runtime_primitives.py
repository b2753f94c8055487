# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/compound_types.md lines 195-209 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Runtime primitives: template_primitives=False
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)
# <<< added

@qd.data_oriented(template_primitives=False)
class Simulation:
    def __init__(self):
        self.n = 100
        self.x = qd.ndarray(qd.f32, shape=(256,))

    @qd.kernel
    def step(self):
        for i in range(self.n):
            self.x[i] += 1.0

sim = Simulation()
sim.step()        # compiles once; n is a runtime kernel argument
sim.n = 200       # no recompilation
sim.step()        # the new value of n takes effect immediately

# >>> added for the comparison (not upstream)
print("x", sim.x.to_numpy().sum(), sim.x.to_numpy()[[0, 99, 100, 199, 200]].tolist())
# <<< added
