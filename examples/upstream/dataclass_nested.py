# Vendored from https://github.com/Genesis-Embodied-AI/quadrants (Apache License 2.0; copyright the Quadrants authors).
# See examples/upstream/README.md and LICENSE-upstream.txt. Upstream text, unchanged:
#   docs/source/user_guide/compound_types.md lines 88-100 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   docs/source/user_guide/compound_types.md lines 108-129 at commit ab9a58ab5f9e30daf7d8302083ea7b9bc4368a1d
#   section: Nesting; Passing nested sub-structs to a qd.func
# Blocks between '# >>> added' and '# <<< added' are ours: imports/setup a doc snippet assumes, calls, a printed checksum.
# >>> added for the comparison (not upstream)
from dataclasses import dataclass

import quadrants as qd

qd.init(arch=qd.gpu)
# <<< added

@dataclass
class Inner:
    x: qd.types.NDArray[qd.f32, 1]

@dataclass
class Outer:
    inner: Inner
    y: qd.types.NDArray[qd.f32, 1]

@qd.kernel
def k2(s: Outer) -> None:
    s.inner.x[0] = 1.0
    s.y[0] = 2.0

# >>> added for the comparison (not upstream)
s = Outer(inner=Inner(x=qd.ndarray(qd.f32, shape=(3,))), y=qd.ndarray(qd.f32, shape=(3,)))
k2(s)
print("k2", s.inner.x.to_numpy().tolist(), s.y.to_numpy().tolist())
# <<< added

@dataclass
class Inner:
    x: qd.types.NDArray[qd.f32, 1]

@dataclass
class Outer:
    inner: Inner
    y: qd.types.NDArray[qd.f32, 1]

@qd.func
def touch_inner(inner: Inner) -> None:
    inner.x[0] += 1.0

@qd.func
def touch_outer(s: Outer) -> None:
    s.y[0] += 10.0
    touch_inner(s.inner)        # call site inside a qd.func body

@qd.kernel
def k(s: Outer) -> None:
    touch_outer(s)              # whole-struct call
    touch_inner(s.inner)        # sub-struct call

# >>> added for the comparison (not upstream)
s = Outer(inner=Inner(x=qd.ndarray(qd.f32, shape=(3,))), y=qd.ndarray(qd.f32, shape=(3,)))
k(s)
k(s)
print("k", s.inner.x.to_numpy().tolist(), s.y.to_numpy().tolist())
# <<< added
