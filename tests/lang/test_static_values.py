"""Compile-time values in kernels as Quadrants 1.3.3 has them: `qd.static(field)` is the field (its
elements assignable), `qd.static(a, b)` a tuple, a plain Python method callable, and tuple
assignment from a constant list or a shape."""
import qdexplorer.lang as qd


def test_static_aliases_tuples_and_methods(cpu):
    class Helper:
        def __init__(self, k):
            self.k = k

        def scaled(self, x, y):
            return (x + y) * self.k

    h = Helper(3)
    a = qd.field(qd.f32, shape=())
    b = qd.field(qd.f32, shape=(3, 4))
    m = qd.Matrix.field(2, 2, dtype=qd.f32, shape=())
    out = qd.field(qd.f32, shape=6)
    lst = [2, 3]

    @qd.kernel
    def k(t: qd.f32):
        p = qd.static(a)
        p[None] = p[None] * t
        u, v = qd.static(b, m)
        u[1, 3] = u[1, 2] * t
        v[None][1, 0] = t
        out[0], out[1] = lst
        out[2], out[3] = b.shape
        out[4] = h.scaled(1, 2)  # constants: called while compiling
        out[5] = h.scaled(t, 1.0)  # a kernel value: traced into the kernel, self bound

    a[None] = 4.0
    b[1, 2] = 5.0
    k(2.0)
    assert a[None] == 8.0 and b[1, 3] == 10.0 and m[None][1, 0] == 2.0
    assert out.to_numpy().tolist() == [2.0, 3.0, 3.0, 4.0, 9.0, 9.0]


def test_dicts_in_kernels(cpu):
    x = qd.field(qd.i32, shape=8)
    x.from_numpy(__import__("numpy").arange(0, 16, 2, dtype="int32"))

    @qd.kernel
    def k(u: qd.i32, v: qd.f32) -> qd.f32:
        d = {"foo": 2 + u, "bar": 3 + v}
        c = {x[j]: x[j] + j for j in range(100) if j > 2 if j < 5}
        return d["foo"] * 100 + d["bar"] + sum(c.values()) * 1000

    assert abs(k(2, 0.1) - (403.1 + 21000)) < 1e-3
