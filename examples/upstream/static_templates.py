# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/static.md lines 14-22 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/static.md lines 32-35 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/static.md lines 57-61 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Compile-time branching; Loop unrolling; Interaction with parallelization
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)

my_field = qd.field(qd.i32, shape=10)
# <<< added

@qd.kernel
def compute(use_fast_path: qd.Template, a: qd.Template) -> None:
    for i in range(10):
        if qd.static(use_fast_path):
            a[i] = i * 2
        else:
            a[i] = i * 3 + 1

compute(True, my_field)

# >>> added for the comparison (not upstream)
print("fast", my_field.to_numpy().tolist())
compute(False, my_field)
print("slow", my_field.to_numpy().tolist())
# <<< added

@qd.kernel
def compute(a: qd.Template) -> None:
    for i in qd.static(range(3)):
        a[i] = i * 10

# >>> added for the comparison (not upstream)
compute(my_field)
print("unrolled", my_field.to_numpy().tolist())
# <<< added

@qd.kernel
def compute(enable_pass: qd.Template, N: int, a: qd.Template) -> None:
    if qd.static(enable_pass):
        for i in range(N):  # still parallelized
            a[i] += 1

# >>> added for the comparison (not upstream)
compute(True, 10, my_field)
compute(False, 10, my_field)
print("pass", my_field.to_numpy().tolist())
# <<< added
