"""Compile-time values in kernels as Quadrants 1.3.3 has them: `qd.static(field)` is the field (its
elements assignable), `qd.static(a, b)` a tuple, a plain Python method callable, and tuple
assignment from a constant list or a shape."""
import pytest

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


def test_static_loops_continue_and_refuse_a_runtime_break(cpu):
    x = qd.field(qd.i32, shape=(2, 5))

    @qd.kernel
    def k():
        for i in qd.static(range(5)):  # top level: unrolled into tasks
            if qd.static(i == 2):
                continue
            x[0, i] = 1
        for _ in range(1):
            for i in qd.static(range(5)):  # inside a task
                if qd.static(i % 2 == 1):
                    continue
                x[1, i] = 2
            ...

    @qd.kernel
    def runtime_break(t: qd.i32):
        for b in range(2):
            for i in qd.static(range(3)):
                if i >= t:
                    break

    @qd.kernel
    def dead_branch(flag: qd.template()):
        if qd.static(flag):
            x[0, 0] = 5
        else:
            import os  # noqa: F401 - never lowered while flag is True

    @qd.kernel
    def runtime_static(v: qd.f32):
        if qd.static(v > 0.5):
            x[0, 0] = 1

    k()
    assert x.to_numpy().tolist() == [[1, 1, 0, 1, 1], [2, 0, 2, 0, 2]]
    with pytest.raises(qd.QuadrantsCompilationError, match="You are trying to `break` a static `for` loop"):
        runtime_break(1)
    dead_branch(True)
    assert x[0, 0] == 5
    with pytest.raises(qd.QuadrantsSyntaxError):
        dead_branch(False)
    with pytest.raises(qd.QuadrantsCompilationError, match="must be compile-time constants"):
        runtime_static(1.0)


def test_matrix_slices_beside_a_runtime_index(cpu):
    """`m[i, 1:3]`, `m[:, j]`, `m[i, :] = v` with i, j kernel values (values from real Quadrants)."""
    @qd.kernel
    def k(i: qd.i32, j: qd.i32) -> qd.types.matrix(3, 4, qd.i32):
        m = qd.Matrix([[r * 4 + c for c in range(4)] for r in range(3)])
        row = m[i, 1:3]
        col = m[:, j]
        m[j % 3, :] = qd.Vector([-1, -2, -3, -4])
        m[:2, i] += qd.Vector([100, 200])
        m[2, 0] = row[0] * 1000 + row[1] + col[2] * 10
        return m

    @qd.kernel
    def variable_bound(i: qd.i32):
        a = qd.Vector([0, 1, 2, 3, 4, 5, 6])
        b = a[i::2]  # noqa: F841

    assert k(1, 2).tolist() == [[0, 101, 2, 3], [4, 205, 6, 7], [5106, -2, -3, -4]]
    assert k(2, 0).tolist() == [[-1, -2, 97, -4], [4, 5, 206, 7], [9090, 9, 10, 11]]
    with pytest.raises(qd.QuadrantsCompilationError, match="Quadrants does not support variables in slice now"):
        variable_bound(1)


def test_swizzles_take_lists_and_name_their_components(cpu):
    @qd.kernel
    def k() -> qd.types.vector(3, qd.i32):
        v = qd.Vector([1, 2, 3])
        v.zxy += [v.z, v.y, v.x]
        return v

    @qd.kernel
    def bad_z():
        b = qd.math.vec2(1, 2)
        b.z = 3

    assert k().tolist() == [3, 3, 6]
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"vec2 only has attributes=\('x', 'y'\), got=\('z',\)"):
        bad_z()
    a = qd.math.vec2(1, 2)
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"got=\('x', 'y', 'z'\)"):
        a.xyz = [1, 2, 3]
    with pytest.raises(qd.QuadrantsRuntimeError, match="value len does not match the swizzle pattern=xy"):
        a.xy = [1, 2, 3]
    a.yx = [5, 6]
    assert a.tolist() == [6, 5]


def test_long_vectors_index_at_run_time_and_struct_members_wrap(cpu):
    """A 300-component vector indexed by a loop variable (it nested too deeply to compile), and an
    int struct member given an out-of-range Python int reaches a kernel wrapped, as in Quadrants (it raised
    OverflowError)."""
    s0 = qd.types.struct(a=qd.i16, b=qd.f32)
    s1 = qd.types.struct(a=qd.f32, b=s0)

    @qd.kernel
    def total(n: qd.i32) -> qd.i32:
        v = qd.types.vector(300, qd.i32)(0)
        for i in range(300):
            v[i] = i
        ret = 0
        for i in range(n):
            ret += v[i]
        return ret

    @qd.kernel
    def members(a: s1) -> qd.f32:
        return a.a + a.b.a + a.b.b

    assert total(300) == 299 * 150 and total(7) == 21
    assert s0(a=65537, b=1.0).a == 65537  # Python keeps the int; a kernel gets it wrapped
    assert members(s1(a=1, b=s0(a=65537, b=123))) == 125.0


def test_loop_config_on_an_inner_loop_is_ignored_with_quadrants_warning(cpu, capfd):
    a = qd.field(qd.i32, shape=4)

    @qd.kernel
    def nested():
        for _ in range(2):
            qd.loop_config(name="nested_inner")
            for i in range(4):
                a[i] = a[i] + 1

    capfd.readouterr()
    nested()
    err = capfd.readouterr().err
    assert a.to_numpy().tolist() == [2, 2, 2, 2]
    assert 'qd.loop_config(name="nested_inner")' in err and "nested inside another for-loop" in err
