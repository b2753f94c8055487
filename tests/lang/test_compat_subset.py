"""Issue 11: constructs of the documented subset that used to be rejected, each against NumPy."""
import numpy as np
import pytest

import qdexplorer.lang as qd

I1 = qd.types.ndarray(dtype=qd.i32, ndim=1)
F1 = qd.types.ndarray(dtype=qd.f32, ndim=1)


def test_loop_bounds_read_from_array_elements(arch):
    @qd.kernel
    def k(lim: I1, out: I1):
        for i in range(lim[0], lim[1]):
            out[i] = i
        for i, j in qd.ndrange(lim[2], (lim[0], lim[1])):
            out[i * 10 + j] += 100

    lim = np.array([2, 7, 3], np.int32)
    out = np.zeros(40, np.int32)
    k(lim, out)
    ref = np.zeros(40, np.int32)
    ref[2:7] = np.arange(2, 7)
    for i in range(3):
        for j in range(2, 7):
            ref[i * 10 + j] += 100
    np.testing.assert_array_equal(out, ref)


N_NP = np.int64(4)
SCALE = np.float32(0.5)
ZERO_D = np.array(3)


def test_numpy_scalars_and_0d_arrays_as_constants(arch):
    @qd.kernel
    def k(out: F1):
        for i in range(N_NP):
            out[i] = i * SCALE + ZERO_D

    out = np.zeros(5, np.float32)
    k(out)
    np.testing.assert_allclose(out, [3, 3.5, 4, 4.5, 0])


def test_static_top_level_loop_unrolls_into_tasks(arch):
    @qd.kernel
    def k(a: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for r in qd.static(range(3)):
            for i in range(a.shape[1]):
                a[r, i] = r * 10 + i
        if qd.static(False):
            for i in range(a.shape[1]):
                a[0, i] = -1

    a = np.zeros((3, 4), np.int32)
    k(a)
    np.testing.assert_array_equal(a, np.fromfunction(lambda r, i: r * 10 + i, (3, 4)))
    assert [t.type for t in k.tasks(k.spec_for((a,)))] == ["range_for"] * 3


def test_bare_ndarray_annotation_specialises_on_call(arch):
    @qd.kernel
    def k(x: qd.types.NDArray):
        for i in range(x.shape[0]):
            x[i] = x[i] * 2

    a = np.arange(4, dtype=np.int32)
    b = np.arange(4, dtype=np.float64)
    k(a)
    k(b)
    np.testing.assert_array_equal(a, [0, 2, 4, 6])
    np.testing.assert_array_equal(b, [0, 2, 4, 6])


@qd.func
def axpb(x, a=2, b: qd.i32 = 1):
    return a * x + b


def test_func_defaults_and_keywords(arch):
    @qd.kernel
    def k(out: I1):
        for i in range(out.shape[0]):
            out[i] = axpb(i) + axpb(i, b=10) + axpb(b=0, x=i, a=3)

    out = np.zeros(4, np.int32)
    k(out)
    i = np.arange(4)
    np.testing.assert_array_equal(out, (2 * i + 1) + (2 * i + 10) + 3 * i)


def test_func_called_twice_for_one_parameter_is_a_clear_error(cpu):
    @qd.kernel
    def k(out: I1):
        out[0] = axpb(1, x=2)

    with pytest.raises(qd.QuadrantsSyntaxError, match="Multiple values for argument 'x'"):
        k(np.zeros(1, np.int32))


def test_chained_assignment_bare_return_and_func_applied_inside(arch):
    def triple(v):
        return v * 3

    @qd.kernel
    def k(out: I1):
        for i in range(out.shape[0]):
            a = b = i + 7
            out[i] = a + b + qd.func(triple)(i)
        return

    out = np.zeros(3, np.int32)
    k(out)
    np.testing.assert_array_equal(out, [14, 19, 24])


def test_atomics_on_locals_return_the_old_value(arch):
    @qd.kernel
    def k(out: I1):
        for i in range(out.shape[0]):
            s = i
            old = qd.atomic_add(s, 5)
            m = qd.atomic_max(s, 6)
            out[i] = s * 100 + old * 10 + m

    out = np.zeros(3, np.int32)
    k(out)
    ref = [max(i + 5, 6) * 100 + i * 10 + (i + 5) for i in range(3)]
    np.testing.assert_array_equal(out, ref)


def test_kernel_scope_locals_are_shared_between_tasks(arch):
    @qd.kernel
    def total(x: F1, out: F1):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i]
        out[0] = s
        m = s / x.shape[0]
        for i in range(x.shape[0]):
            out[i + 1] = x[i] - m

    x = np.arange(1, 101, dtype=np.float32)
    out = np.zeros(101, np.float32)
    total(x, out)
    assert out[0] == pytest.approx(x.sum())
    np.testing.assert_allclose(out[1:], x - x.mean(), rtol=1e-5)
    assert any(imp.role == "gtmp" for t in total.tasks(total.spec_for((x, out))) for imp in t.implicit)


def test_kernel_scope_local_under_serialize_is_a_running_value(arch):
    @qd.kernel
    def prefix(x: I1, out: I1):
        acc = 0
        qd.loop_config(serialize=True)
        for i in range(x.shape[0]):
            acc += x[i]
            out[i] = acc

    x = np.arange(1, 9, dtype=np.int32)
    out = np.zeros(8, np.int32)
    prefix(x, out)
    np.testing.assert_array_equal(out, np.cumsum(x))


def test_struct_for_over_ndarrays(arch):
    @qd.kernel
    def k(x: I1, y: qd.types.ndarray(dtype=qd.i32, ndim=2), z: qd.types.ndarray(dtype=qd.i32, ndim=2)):
        for i in x:
            x[i] = i * 2
        for i, j in y:
            y[i, j] = i * 10 + j
        for I in qd.grouped(z):
            z[I] = I[0] + I[1] * 100
        for i, j in qd.ndrange(*y.shape):
            y[i, j] += 1000

    x = np.zeros(5, np.int32)
    y = np.zeros((3, 4), np.int32)
    z = np.zeros((2, 3), np.int32)
    k(x, y, z)
    np.testing.assert_array_equal(x, np.arange(5) * 2)
    np.testing.assert_array_equal(y, np.fromfunction(lambda i, j: i * 10 + j + 1000, (3, 4)))
    np.testing.assert_array_equal(z, np.fromfunction(lambda i, j: i + j * 100, (2, 3)))


def test_inner_ndrange_and_grouped_loops(arch):
    @qd.kernel
    def k(out: I1):
        for t in range(out.shape[0]):
            s = 0
            for i, j in qd.ndrange(t, (1, 4)):
                s += i * 10 + j
            for I in qd.grouped(qd.ndrange(2, 2)):
                s += I[0] * 1000 + I[1] * 100
            out[t] = s

    out = np.zeros(4, np.int32)
    k(out)
    ref = [sum(i * 10 + j for i in range(t) for j in range(1, 4)) + 2 * 1000 + 2 * 100 for t in range(4)]
    np.testing.assert_array_equal(out, ref)
