"""A user's class constructed inside a kernel or func: Quadrants runs its `__init__` as Python while it
compiles, on the kernel values it is given, and its @qd.func methods read them back (found by the
corpus: taichi_benchmark's smallpt builds a `Ray(origin, direction)` in `Camera.get_ray`)."""
import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.ir.errors import QdCompileError


@pytest.fixture
def q():
    qd.init(arch=qd.cpu)
    yield qd
    qd.reset()


@qd.data_oriented
class Ray:
    def __init__(self, origin, direction):
        self.origin = origin
        self.direction = direction

    @qd.func
    def at(self, t):
        return self.origin + t * self.direction


class Scaled:
    def __init__(self, v, k=2.0):
        self.v, self.k = v, k


def test_an_object_built_in_a_func_holds_kernel_values(q):
    out = qd.Vector.field(3, qd.f32, shape=(4,))
    o = qd.Vector.field(3, qd.f32, shape=())

    @qd.func
    def make(i):
        return Ray(o[None], qd.Vector([1.0, 0.0, float(i)]))

    @qd.kernel
    def k():
        for i in range(4):
            r = make(i)
            s = Scaled(r.direction, k=3.0)
            out[i] = r.at(0.5) + s.v * s.k

    o[None] = [1.0, 2.0, 3.0]
    k()
    np.testing.assert_allclose(out.to_numpy()[2], [1.5 + 3.0, 2.0, 3.0 + 1.0 + 6.0])


def test_an_init_that_computes_on_kernel_values_is_refused_at_the_call(q):
    class Bad:
        def __init__(self, v):
            self.n = len(str(v)) + v  # Python arithmetic on a kernel value

    @qd.kernel
    def k():
        for i in range(2):
            Bad(i)

    with pytest.raises(QdCompileError, match=r"constructing Bad\(\.\.\.\) in a kernel failed"):
        k()
