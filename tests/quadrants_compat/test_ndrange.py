import numpy as np
import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_1d():
    x = qd.field(qd.f32, shape=(16))

    @qd.kernel
    def func():
        for i in qd.ndrange((4, 10)):
            x[i] = i

    func()

    for i in range(16):
        if 4 <= i < 10:
            assert x[i] == i
        else:
            assert x[i] == 0


@test_utils.test()
def test_2d():
    x = qd.field(qd.f32, shape=(16, 32))

    t = 8

    @qd.kernel
    def func():
        for i, j in qd.ndrange((4, 10), (3, t)):
            val = i + j * 10
            x[i, j] = val

    func()
    for i in range(16):
        for j in range(32):
            if 4 <= i < 10 and 3 <= j < 8:
                assert x[i, j] == i + j * 10
            else:
                assert x[i, j] == 0


@test_utils.test()
def test_3d():
    x = qd.field(qd.f32, shape=(16, 32, 64))

    @qd.kernel
    def func():
        for i, j, k in qd.ndrange((4, 10), (3, 8), 17):
            x[i, j, k] = i + j * 10 + k * 100

    func()
    for i in range(16):
        for j in range(32):
            for k in range(64):
                if 4 <= i < 10 and 3 <= j < 8 and k < 17:
                    assert x[i, j, k] == i + j * 10 + k * 100
                else:
                    assert x[i, j, k] == 0


@test_utils.test()
def test_tensor_based_3d():
    x = qd.field(qd.i32, shape=(6, 6, 6))
    y = qd.field(qd.i32, shape=(6, 6, 6))

    @qd.kernel
    def func():
        lower = qd.Vector([0, 1, 2])
        upper = qd.Vector([3, 4, 5])
        for I in qd.grouped(qd.ndrange((lower[0], upper[0]), (lower[1], upper[1]), (lower[2], upper[2]))):
            x[I] = I[0] + I[1] + I[2]
        for i in range(0, 3):
            for j in range(1, 4):
                for k in range(2, 5):
                    y[i, j, k] = i + j + k

    func()

    for i in range(6):
        for j in range(6):
            for k in range(6):
                assert x[i, j, k] == y[i, j, k]


@test_utils.test()
def test_field_init_eye():
    # https://github.com/taichi-dev/taichi/issues/1824

    n = 32

    A = qd.field(qd.f32, (n, n))

    @qd.kernel
    def init():
        for i, j in qd.ndrange(n, n):
            if i == j:
                A[i, j] = 1

    init()
    assert np.allclose(A.to_numpy(), np.eye(n, dtype=np.float32))


@test_utils.test()
def test_ndrange_index_floordiv():
    # https://github.com/taichi-dev/taichi/issues/1829

    n = 10

    A = qd.field(qd.f32, (n, n))

    @qd.kernel
    def init():
        for i, j in qd.ndrange(n, n):
            if i // 2 == 0:
                A[i, j] = i

    init()
    for i in range(n):
        for j in range(n):
            if i // 2 == 0:
                assert A[i, j] == i
            else:
                assert A[i, j] == 0


@test_utils.test()
def test_nested_ndrange():
    # https://github.com/taichi-dev/taichi/issues/1829

    n = 2

    A = qd.field(qd.i32, (n, n, n, n))

    @qd.kernel
    def init():
        for i, j in qd.ndrange(n, n):
            for k, l in qd.ndrange(n, n):
                r = i * n**3 + j * n**2 + k * n + l
                A[i, j, k, l] = r

    init()
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for l in range(n):
                    r = i * n**3 + j * n**2 + k * n + l
                    assert A[i, j, k, l] == r


@test_utils.test(qd.cpu)
def test_ndrange_ast_transform():
    n, u, v = 4, 3, 2

    a = qd.field(qd.i32, ())
    b = qd.field(qd.i32, ())
    A = qd.field(qd.i32, (n, n))

    @qd.kernel
    def func():
        # `__getitem__ cannot be called from Python-scope` will be raised if
        # `a[None]` is not transformed to `qd.subscript(a, None)` in qd.ndrange:
        for i, j in qd.ndrange(a[None], b[None]):
            r = i * n + j + 1
            A[i, j] = r

    a[None] = u
    b[None] = v

    func()

    for i in range(n):
        for j in range(n):
            if i < u and j < v:
                r = i * n + j + 1
            else:
                r = 0
            assert A[i, j] == r


@test_utils.test()
def test_ndrange_start_greater_than_end():
    @qd.kernel
    def ndrange_test(i1: qd.i32, i2: qd.i32, j1: qd.i32, j2: qd.i32) -> qd.i32:
        n: qd.i32 = 0
        for i, j in qd.ndrange((i1, i2), (j1, j2)):
            n += 1
        return n

    assert ndrange_test(0, 10, 0, 20) == 200
    assert ndrange_test(0, 10, 20, 0) == 0
    assert ndrange_test(10, 0, 0, 20) == 0
    assert ndrange_test(10, 0, 20, 0) == 0


@test_utils.test()
def test_ndrange_should_accept_numpy_integer():
    a, b = np.int64(0), np.int32(10)

    @qd.kernel
    def example():
        for i in qd.ndrange((a, b)):
            pass

    example()


@test_utils.test()
def test_static_ndrange_should_accept_numpy_integer():
    a, b = np.int64(0), np.int32(10)

    @qd.kernel
    def example():
        for i in qd.static(qd.ndrange((a, b))):
            pass

    example()


@test_utils.test()
def test_2d_loop_over_ndarray():
    @qd.kernel
    def foo(arr: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        M = arr.shape[0]
        for i, j in qd.ndrange(M, M):
            verts = qd.math.vec4(arr[i], arr[i + 1], arr[j], arr[j + 1])

    array = qd.ndarray(qd.i32, shape=(16,))
    foo(array)


