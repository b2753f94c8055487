"""Smaller names of Quadrants' surface: `@qd.perf_dispatch` (the result Quadrants 1.3.3 printed for the
same program), `qd.frexp` (checked against NumPy: Quadrants' CPU backend aborts on it), and the
Vulkan-only names that exist so that code naming them imports."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_perf_dispatch_runs_a_compatible_implementation_and_keeps_one():
    @qd.perf_dispatch(get_geometry_hash=lambda a, c: hash(a.shape + c.shape))
    def double(a: qd.types.NDArray[qd.i32, 1], c: qd.types.NDArray[qd.i32, 1]): ...

    @double.register
    @qd.kernel
    def by_mul(a: qd.types.NDArray[qd.i32, 1], c: qd.types.NDArray[qd.i32, 1]) -> None:
        for i in range(a.shape[0]):
            c[i] = a[i] * 2

    @double.register(is_compatible=lambda a, c: a.shape[0] < 2)
    @qd.kernel
    def by_add(a: qd.types.NDArray[qd.i32, 1], c: qd.types.NDArray[qd.i32, 1]) -> None:
        for i in range(a.shape[0]):
            c[i] = a[i] + a[i]

    a, c = qd.ndarray(qd.i32, shape=8), qd.ndarray(qd.i32, shape=8)
    a.from_numpy(np.arange(8, dtype=np.int32))
    for _ in range(3):
        double(a, c)
    assert c.to_numpy().tolist() == [0, 2, 4, 6, 8, 10, 12, 14]
    assert [entry[0] for entry in double.chosen.values()] == [by_mul]   # by_add is not compatible at 8


def test_frexp_in_a_kernel_matches_numpy():
    xs_np = np.array([8.0, 0.0, -3.5, 0.1, 1.0, 1e-3], np.float32)
    xs, m, e = qd.field(qd.f32, shape=6), qd.field(qd.f32, shape=6), qd.field(qd.i32, shape=6)
    xs.from_numpy(xs_np)

    @qd.kernel
    def k():
        for i in xs:
            a, b = qd.frexp(xs[i])
            m[i] = a
            e[i] = b

    k()
    want_m, want_e = np.frexp(xs_np)
    np.testing.assert_allclose(m.to_numpy(), want_m, rtol=1e-6)
    np.testing.assert_array_equal(e.to_numpy(), want_e)


def test_names_of_other_backends_exist():
    assert qd.Format.rgba8 != qd.Format.r32f and qd.DeviceCapability.spirv_has_atomic_float == 0
    qd.init(arch=qd.python)      # Quadrants' python arch runs on the CPU backend here
    x = qd.field(qd.i32, shape=2)

    @qd.kernel
    def k():
        for i in x:
            x[i] = i + 1

    k()
    assert x.to_numpy().tolist() == [1, 2]


def test_atomic_mul_and_exchange_on_fields_and_locals():
    p, pi = qd.field(qd.f32, shape=()), qd.field(qd.i32, shape=())
    x, olds = qd.field(qd.i32, shape=4), qd.field(qd.i32, shape=4)
    x.from_numpy(np.array([7, 8, 9, 10], np.int32))

    @qd.kernel
    def k():
        p[None] = 1.0
        pi[None] = 1
        for i in range(10):          # ten threads multiply the same cells
            qd.atomic_mul(p[None], 1.5)
            qd.atomic_mul(pi[None], 2)
        for i in range(4):
            olds[i] = qd.atomic_exchange(x[i], i * 10 + 1)

    @qd.kernel
    def on_locals() -> qd.f32:
        s = 2.0
        o = qd.atomic_mul(s, 3.0)
        t = 5
        o2 = qd.atomic_exchange(t, 9)
        return s + o + t + o2

    k()   # Quadrants 1.3.3 printed 57.665 1024 [1, 11, 21, 31] [7, 8, 9, 10] for this kernel
    assert (round(p[None], 3), pi[None]) == (57.665, 1024)
    assert x.to_numpy().tolist() == [1, 11, 21, 31] and olds.to_numpy().tolist() == [7, 8, 9, 10]
    assert on_locals() == 22.0   # 6 + 2 + 9 + 5 (Quadrants' CPU backend aborts on atomics of locals)


def test_atomic_cas_and_bit_cast():
    x, olds = qd.field(qd.i32, shape=4), qd.field(qd.i32, shape=4)
    f, bits, back = qd.field(qd.f32, shape=2), qd.field(qd.i32, shape=2), qd.field(qd.f32, shape=2)
    x.from_numpy(np.array([5, 6, 5, 7], np.int32))
    f.from_numpy(np.array([1.5, 2.5], np.float32))

    @qd.kernel
    def k():
        for i in range(4):
            olds[i] = qd.atomic_cas(x[i], 5, 100 + i)
        for i in range(2):
            bits[i] = qd.bit_cast(f[i], qd.i32)
            back[i] = qd.bit_cast(bits[i], qd.f32)

    k()   # the values real Quadrants 1.3.3 gave for this kernel
    assert x.to_numpy().tolist() == [100, 6, 102, 7] and olds.to_numpy().tolist() == [5, 6, 5, 7]
    assert bits.to_numpy().tolist() == [1069547520, 1075838976] and back.to_numpy().tolist() == [1.5, 2.5]

    @qd.kernel
    def on_float():
        qd.atomic_cas(f[0], 1.5, 9.0)

    with pytest.raises(qd.QuadrantsTypeError, match="'atomic_cas' requires integer operands"):
        on_float()


def test_eig_sym_eig_and_make_spd_give_quadrants_results():
    ev, vec = qd.Matrix.field(2, 2, qd.f32, shape=2), qd.Matrix.field(4, 2, qd.f32, shape=2)
    vals, vecs = qd.Vector.field(3, qd.f32, shape=1), qd.Matrix.field(3, 3, qd.f32, shape=1)
    spd = qd.Matrix.field(3, 3, qd.f32, shape=1)

    @qd.kernel
    def k():
        a, b = qd.eig(qd.Matrix([[2.0, 1.0], [1.0, 3.0]]), qd.f32)
        ev[0] = a
        vec[0] = b
        c, d = qd.eig(qd.Matrix([[0.0, -1.0], [1.0, 0.0]]), qd.f32)
        ev[1] = c
        vec[1] = d
        A = qd.Matrix([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, -0.5]])
        e, f = qd.sym_eig(A, qd.f32)
        vals[0] = e
        vecs[0] = f
        spd[0] = qd.make_spd(A, qd.f32)

    k()   # the values real Quadrants 1.3.3 printed for this kernel, to 4 places
    np.testing.assert_allclose(ev.to_numpy(), [[[3.618, 0.0], [1.382, 0.0]], [[0.0, 1.0], [0.0, -1.0]]], atol=1e-4)
    np.testing.assert_allclose(vec.to_numpy()[0], [[0.5257, -0.8507], [0, 0], [0.8507, 0.5257], [0, 0]], atol=1e-4)
    np.testing.assert_allclose(vals.to_numpy()[0], [-0.8926, 1.2462, 3.1465], atol=1e-4)
    np.testing.assert_allclose(vecs.to_numpy()[0], [[0.1253, 0.7549, -0.6437], [0.3626, 0.5691, 0.738],
                                                    [0.9235, -0.3259, -0.2024]], atol=1e-4)
    np.testing.assert_allclose(spd.to_numpy()[0], [[2.014, -0.9594, 0.1033], [-0.9594, 2.1174, -0.7011],
                                                   [0.1033, -0.7011, 0.2613]], atol=1e-4)


def test_clock_counter_advances_and_clock_freq_hz_converts_it():
    out = qd.field(qd.i64, shape=1)

    @qd.kernel
    def k(n: qd.i32):
        start = qd.clock_counter()
        s = 0.0
        for i in range(n):
            s += qd.sin(i * 1.0)
        out[0] = qd.clock_counter() - start + qd.cast(s, qd.i64) * 0

    k(200000)
    hz = qd.clock_freq_hz()
    assert out[0] > 0 and 1e6 < hz < 1e11     # a counter of MHz to tens of GHz, as cycle counters run


def test_get_addr_points_at_the_element_kernels_use():
    import ctypes
    x = qd.Vector.field(3, qd.f32, shape=(4, 5))
    x[2, 3] = [1.0, 2.0, 7.5]
    addr = qd.get_addr(x, [2, 3])
    assert addr - qd.get_addr(x, [2, 2]) == 12 and addr - qd.get_addr(x, [1, 3]) == 5 * 12
    assert ctypes.c_float.from_address(addr + 8).value == 7.5
