# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/scalar_tensors.md lines 32-45 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/scalar_tensors.md lines 53-54 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Example: summing with atomics; Reading from Python
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
import quadrants as qd

qd.init(arch=qd.gpu)

total = qd.field(qd.i32, shape=())

@qd.kernel
def sum_range(N: int) -> None:
    for i in range(N):
        qd.atomic_add(total[()], i)

total[()] = 0
sum_range(100)
print("sum:", total[()])  # 4950

total[()] = 0       # write
print(total[()])    # read
