"""A vector or matrix written one component at a time must read its right-hand side whole first.

Found by the corpus (taichi_mass_spring_3d_ggui: `v[i] -= qd.min(v[i].dot(normal), 0) * normal` in a
parallel loop): the component-wise atomics recomputed `v[i].dot(normal)` after the first component
had already been updated, so the cloth bounced off the ball differently — a silent wrong answer.
Expected values are Quadrants 1.3.3's on the CPU (the same kernels, run there)."""
import numpy as np
import pytest

import qdexplorer.lang as qd

N = np.array([0.6, 0.8, 0.0], np.float32)


@pytest.fixture
def q():
    qd.init(arch=qd.cpu)
    yield qd
    qd.reset()


def projected(v):
    return v - np.float32(v.dot(N)) * N


def test_aug_assign_of_a_field_vector_reads_the_old_vector(q):
    v = qd.Vector.field(3, dtype=qd.f32, shape=(4,))
    m = qd.Matrix.field(2, 2, dtype=qd.f32, shape=(2,))

    @qd.kernel
    def k():
        n = qd.Vector([0.6, 0.8, 0.0])
        for i in v:
            v[i] -= qd.min(v[i].dot(n), 0) * n
        for i in m:
            m[i] -= m[i] @ m[i]

    v.from_numpy(np.array([[1.0, -2.0, 0.5]] * 4, np.float32))
    m.from_numpy(np.array([[[1, 2], [3, 4]]] * 2, np.float32))
    k()
    np.testing.assert_array_equal(v.to_numpy()[0], projected(np.array([1.0, -2.0, 0.5], np.float32)))
    assert v.to_numpy()[0].tolist() == [1.600000023841858, -1.2000000476837158, 0.5]
    assert m.to_numpy()[1].tolist() == [[-6.0, -8.0], [-12.0, -18.0]]


def test_aug_assign_of_an_ndarray_vector_reads_the_old_vector(q):
    a = qd.ndarray(qd.math.vec3, shape=(2,))

    @qd.kernel
    def k(a: qd.types.ndarray()):
        n = qd.Vector([0.6, 0.8, 0.0])
        for i in range(2):
            a[i] -= a[i].dot(n) * n

    a.from_numpy(np.array([[1.0, -2.0, 0.5]] * 2, np.float32))
    k(a)
    assert a.to_numpy()[1].tolist() == [1.600000023841858, -1.2000000476837158, 0.5]


def test_struct_members_read_whole_before_the_update(q):
    S = qd.types.struct(p=qd.math.vec3, m=qd.math.mat2)
    s = S.field(shape=(3,))

    @qd.kernel
    def init():
        for i in range(3):
            s[i].p = [1.0, -2.0, 0.5]
            s[i].m = [[1, 2], [3, 4]]

    @qd.kernel
    def k():
        n = qd.Vector([0.6, 0.8, 0.0])
        for i in range(3):
            s[i].p -= s[i].p.dot(n) * n
            s[i].m += s[i].m @ s[i].m

    @qd.kernel
    def serial_rotate():
        qd.loop_config(serialize=True)
        for i in range(1):
            s[i].p = s[i].p.zxy

    init()
    k()
    assert s.p.to_numpy()[2].tolist() == [1.600000023841858, -1.2000000476837158, 0.5]
    assert s.m.to_numpy()[0].tolist() == [[8.0, 12.0], [18.0, 26.0]]
    serial_rotate()
    assert s.p.to_numpy()[0].tolist() == [0.5, 1.600000023841858, -1.2000000476837158]


def test_atomic_add_of_a_vector_with_its_own_components(q):
    v = qd.Vector.field(3, dtype=qd.f32, shape=(3,))
    a = qd.ndarray(qd.math.vec3, shape=(3,))

    @qd.kernel
    def init(a: qd.types.ndarray()):
        for i in range(3):
            v[i] = [1.0, -2.0, 0.5]
            a[i] = [3.0, 1.5, 0.25]

    @qd.kernel
    def k(a: qd.types.ndarray()):
        for i in range(3):
            old = qd.atomic_add(v[i], v[i].zxy)
            old2 = qd.atomic_sub(a[i], a[i].yzx * 2)
            v[i] += old * 0.5 + old2

    init(a)
    k(a)
    assert v.to_numpy()[0].tolist() == [5.0, -0.5, -1.0]
    assert a.to_numpy()[0].tolist() == [0.0, 1.0, -5.75]
