"""Issue 11: fields, host ndarrays, templates and kernel return values, against NumPy."""
import numpy as np
import pytest

import qdexplorer.lang as qd

F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)

pos = qd.field(qd.f32, shape=(8,))
grid = qd.field(qd.i32, shape=(4, 5))
counter = qd.field(qd.i32, shape=())


@qd.func
def bump_counter(v):
    counter[None] += v


def test_fields_as_globals_python_access_and_numpy_io(arch):
    @qd.kernel
    def step(dt: qd.f32):
        for i in pos:
            pos[i] = pos[i] + dt * i
        for i, j in grid:
            grid[i, j] = i * 10 + j
        for i in range(3):
            bump_counter(2)

    pos.from_numpy(np.arange(8, dtype=np.float32))
    counter[None] = 1
    step(0.5)
    np.testing.assert_allclose(pos.to_numpy(), np.arange(8) * 1.5)
    np.testing.assert_array_equal(grid.to_numpy(), np.fromfunction(lambda i, j: i * 10 + j, (4, 5)))
    assert counter[None] == 7 and counter.to_numpy().shape == ()
    grid.fill(3)
    grid[1, 2] = 9
    assert grid[1, 2] == 9 and grid.to_numpy().sum() == 3 * 20 + 6
    with pytest.raises(ValueError, match="expected an array of shape"):
        pos.from_numpy(np.zeros(3))


def test_each_task_gets_only_the_fields_it_touches(cpu):
    a = qd.field(qd.f32, shape=4)
    b = qd.field(qd.f32, shape=4)

    @qd.kernel
    def k():
        for i in a:
            a[i] = 1.0
        for i in b:
            b[i] = a[i] + 1.0

    k()
    t0, t1 = k.tasks(k.spec_for(()))
    assert [p.name for p in t0.params] == ["a"]
    assert sorted(p.name for p in t1.params) == ["a", "b"]
    np.testing.assert_array_equal(b.to_numpy(), [2, 2, 2, 2])


def test_host_ndarray_passes_without_a_copy_on_the_cpu(cpu):
    @qd.kernel
    def k(x: qd.types.ndarray(dtype=qd.f32, ndim=2)):
        for i, j in x:
            x[i, j] += i + j

    x = qd.ndarray(qd.f32, shape=(3, 4))
    x.fill(1.0)
    k(x)
    k(x)
    np.testing.assert_allclose(x.to_numpy(), 1 + 2 * np.fromfunction(lambda i, j: i + j, (3, 4)))
    assert x.shape == (3, 4) and x[2, 3] == pytest.approx(11.0)


def test_templates_specialise_per_value_and_share_code_for_fields(arch):
    @qd.kernel
    def fill(f: qd.template(), v: qd.template()):
        for I in qd.grouped(f):
            f[I] = v

    a = qd.field(qd.i32, shape=(3,))
    b = qd.field(qd.i32, shape=(2, 2))
    c = qd.field(qd.i32, shape=(5,))
    fill(a, 4)
    fill(b, 7)
    fill(c, 4)
    np.testing.assert_array_equal(a.to_numpy(), [4] * 3)
    np.testing.assert_array_equal(b.to_numpy(), [[7, 7], [7, 7]])
    np.testing.assert_array_equal(c.to_numpy(), [4] * 5)
    names_a = [t.name for t in fill.tasks(fill.spec_for((a, 4)))]
    names_b = [t.name for t in fill.tasks(fill.spec_for((b, 7)))]
    assert names_a == ["fill_v4_kernel_0_range_for"] and names_b == ["fill_v7_kernel_0_range_for"]
    assert fill.spec_for((a, 4)) == fill.spec_for((c, 4))  # same dtype and ndim: one compiled version


def test_template_scalars_drive_static_code(arch):
    @qd.kernel
    def powsum(x: F1, n: qd.template()) -> qd.f32:
        s = 0.0
        for i in x:
            v = 1.0
            for _ in qd.static(range(n)):
                v *= x[i]
            s += v
        return s

    x = np.array([1, 2, 3], np.float32)
    assert powsum(x, 2) == pytest.approx(14.0)
    assert powsum(x, 3) == pytest.approx(36.0)


def test_kernel_return_values(arch):
    @qd.kernel
    def count_positive(x: F1) -> qd.i32:
        n = 0
        for i in x:
            if x[i] > 0:
                n += 1
        return n

    @qd.kernel
    def add(a: qd.i32, b: qd.f32) -> qd.f64:
        return a + b

    x = np.array([1, -2, 3, 0, 5], np.float32)
    assert count_positive(x) == 3
    r = add(2, 0.5)
    assert r == 2.5 and isinstance(r, float)


def test_return_inside_an_if_is_an_error(cpu):
    @qd.kernel
    def k(a: qd.i32) -> qd.i32:
        if a > 0:
            return 1
        return 2

    with pytest.raises(qd.QuadrantsSyntaxError, match="only return from its top level"):
        k(1)
