# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/tensor_types.md lines 25-33 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/tensor_types.md lines 43-51 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/tensor_types.md lines 58-66 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: NDArray; Global field; Field args
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
import quadrants as qd

qd.init(arch=qd.gpu)

a = qd.ndarray(qd.i32, shape=(10,))

@qd.kernel
def f1(p1: qd.types.NDArray[qd.i32, 1]) -> None:
    p1[0] += 1

# >>> added for the comparison (not upstream)
f1(a)
f1(a)
print("ndarray", a.to_numpy().tolist())
# <<< added

import quadrants as qd

qd.init(arch=qd.gpu)

a = qd.field(qd.i32, shape=(10,))

@qd.kernel
def f1() -> None:
    a[0] += 1

# >>> added for the comparison (not upstream)
f1()
print("global field", a.to_numpy().tolist())
# <<< added

import quadrants as qd

qd.init(arch=qd.gpu)

a = qd.field(qd.i32, shape=(10,))

@qd.kernel
def f1(p1: qd.Template) -> None:
    p1[0] += 1

# >>> added for the comparison (not upstream)
f1(a)
f1(a)
f1(a)
print("field arg", a.to_numpy().tolist())
# <<< added
