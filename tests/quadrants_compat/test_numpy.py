import numpy as np
import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


def with_data_type(dt):
    val = qd.field(qd.i32)

    n = 4

    qd.root.dense(qd.i, n).place(val)

    @qd.kernel
    def test_numpy(arr: qd.types.ndarray()):
        for i in range(n):
            arr[i] = arr[i] ** 2

    a = np.array([4, 8, 1, 24], dtype=dt)

    for i in range(n):
        a[i] = i * 2

    test_numpy(a)

    for i in range(n):
        assert a[i] == i * i * 4


@test_utils.test()
def test_numpy_multiple_external_arrays():
    n = 4

    @qd.kernel
    def test_numpy(a: qd.types.ndarray(), b: qd.types.ndarray()):
        for i in range(n):
            a[i] = a[i] * b[i]
            b[i] = a[i] + b[i]

    a = np.array([4, 8, 1, 24], dtype=np.int32)
    b = np.array([5, 6, 12, 3], dtype=np.int32)
    c = a * b
    d = c + b

    test_numpy(a, b)
    for i in range(n):
        assert a[i] == c[i]
        assert b[i] == d[i]


@test_utils.test()
def test_numpy_zero():
    @qd.kernel
    def test_numpy(arr: qd.types.ndarray()):
        pass

    test_numpy(np.empty(shape=(0), dtype=np.int32))
    test_numpy(np.empty(shape=(0, 5), dtype=np.int32))
    test_numpy(np.empty(shape=(5, 0), dtype=np.int32))


@test_utils.test()
def test_numpy_struct_for():
    @qd.kernel
    def func1(a: qd.types.ndarray()):
        for i, j in a:
            a[i, j] = i + j

    m = np.zeros((123, 456), dtype=np.int32)
    func1(m)
    for i in range(123):
        for j in range(456):
            assert m[i, j] == i + j

    @qd.kernel
    def func2(a: qd.types.ndarray()):
        for I in qd.grouped(a):
            a[I] = I.sum()

    n = np.zeros((98, 76, 54), dtype=np.int32)
    func2(n)
    for i, j, k in qd.ndrange(98, 76, 54):
        assert n[i, j, k] == i + j + k


