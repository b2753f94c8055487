# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/sub_functions.md lines 15-22 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/sub_functions.md lines 30-37 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: qd.func; Passing fields and ndarrays
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
import quadrants as qd

qd.init(arch=qd.gpu)

a = qd.field(qd.i32, shape=10)
# <<< added

@qd.func
def add(a: qd.i32, b: qd.i32) -> qd.i32:
    return a + b

@qd.kernel
def compute(a: qd.Template) -> None:
    for i in range(10):
        a[i] = add(i, 1)

# >>> added for the comparison (not upstream)
compute(a)
print("add", a.to_numpy().tolist())
# <<< added

@qd.func
def increment(arr: qd.Template, idx: qd.i32) -> None:
    arr[idx] += 1

@qd.kernel
def compute(a: qd.Template) -> None:
    for i in range(10):
        increment(a, i)

# >>> added for the comparison (not upstream)
compute(a)
print("increment", a.to_numpy().tolist())
# <<< added
