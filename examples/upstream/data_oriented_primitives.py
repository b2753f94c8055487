# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/compound_types.md lines 175-187 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Primitive members
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)
# <<< added

@qd.data_oriented
class Simulation:
    def __init__(self, n):
        self.n = n
        self.x = qd.ndarray(qd.f32, shape=(n,))

    @qd.kernel
    def step(self):
        for i in range(self.n):
            self.x[i] += 1.0

Simulation(100).step()   # compiles kernel #1 with n=100 baked in
Simulation(200).step()   # compiles kernel #2 with n=200 baked in

# >>> added for the comparison (not upstream)
s1, s2 = Simulation(100), Simulation(200)
s1.step()
s2.step()
s2.step()
print("sums", s1.x.to_numpy().sum(), s2.x.to_numpy().sum())
# <<< added
