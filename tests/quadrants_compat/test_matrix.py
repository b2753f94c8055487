import math
import operator
import platform
import sys

import numpy as np
import pytest
from pytest import approx

import qdexplorer.lang as qd
from tests.quadrants_compat.upstream import impl
from tests.quadrants_compat.upstream import QuadrantsCompilationError
from tests.quadrants_compat.upstream import get_host_arch_list

from tests.quadrants_compat import test_utils

matrix_operation_types = [operator.add, operator.sub, operator.matmul]
test_matrix_arrays = [
    np.array([[1, 2], [3, 4]]),
    np.array([[5, 6], [7, 8]]),
    np.array([[2, 8], [-1, 3]]),
]

vector_operation_types = [operator.add, operator.sub]
test_vector_arrays = [np.array([42, 42]), np.array([24, 24]), np.array([83, 12])]

u = platform.uname()


# TODO: Loops inside the function will cause AssertionError:
# No new variables can be declared after kernel invocations
# or Python-scope field accesses.
# ideally we should use pytest.fixture to parameterize the tests
# over explicit loops


def _test_local_matrix_non_constant_index():
    @qd.kernel
    def func1() -> qd.types.vector(3, qd.i32):
        tmp = qd.Vector([1, 2, 3])
        for i in range(3):
            vec = qd.Vector([4, 5, 6])
            for j in range(3):
                vec[tmp[i] % 3] += vec[j]
            tmp[i] = vec[tmp[i] % 3]
        return tmp

    assert (func1() == qd.Vector([24, 30, 19])).all()

    @qd.kernel
    def func2(i: qd.i32, j: qd.i32, k: qd.i32) -> qd.i32:
        tmp = qd.Matrix([[k, k * 2], [k * 2, k * 3]])
        return tmp[i, j]

    for i in range(2):
        for j in range(2):
            assert func2(i, j, 10) == 10 * (i + j + 1)


@test_utils.test()
def test_local_matrix_non_constant_index():
    _test_local_matrix_non_constant_index()


@test_utils.test(arch=[qd.cpu, qd.cuda, qd.amdgpu], real_matrix_scalarize=False)
def test_local_matrix_non_constant_index_real_matrix():
    _test_local_matrix_non_constant_index()


@test_utils.test()
def test_matrix_field_non_constant_index():
    m = qd.Matrix.field(2, 2, qd.i32, 5)
    v = qd.Vector.field(10, qd.i32, 5)

    @qd.kernel
    def func1():
        for i in range(5):
            for j, k in qd.ndrange(2, 2):
                m[i][j, k] = j * j + k * k

    func1()
    assert m[1][0, 1] == 1
    assert m[2][1, 0] == 1
    assert m[3][1, 1] == 2
    assert m[4][0, 1] == 1

    @qd.kernel
    def func2():
        for i in range(5):
            for j in range(4):
                v[i][j * j] = j * j

    func2()
    assert v[1][0] == 0
    assert v[1][1] == 1
    assert v[1][4] == 4
    assert v[1][9] == 9


@test_utils.test()
def test_matrix_field_constant_index():
    m = qd.Matrix.field(2, 2, qd.i32, 5)

    @qd.kernel
    def func():
        for i in range(5):
            for j, k in qd.static(qd.ndrange(2, 2)):
                m[i][j, k] = 12

    func()

    assert np.allclose(m.to_numpy(), np.ones((5, 2, 2), np.int32) * 12)


@test_utils.test(arch=qd.cpu)
def test_vector_to_list():
    a = qd.Vector.field(2, float, ())

    data = [2, 3]
    b = qd.Vector(data)
    assert list(b) == data
    assert len(b) == len(data)

    a[None] = b
    assert all(a[None] == qd.Vector(data))


@test_utils.test(debug=True)
def test_copy_python_scope_matrix_to_quadrants_scope():
    a = qd.Vector([1, 2, 3])

    @qd.kernel
    def test():
        b = a
        assert b[0] == 1
        assert b[1] == 2
        assert b[2] == 3
        b = qd.Vector([4, 5, 6])
        assert b[0] == 4
        assert b[1] == 5
        assert b[2] == 6

    test()


@test_utils.test(debug=True)
def test_copy_matrix_field_element_to_quadrants_scope():
    a = qd.Vector.field(3, qd.i32, shape=())
    a[None] = qd.Vector([1, 2, 3])

    @qd.kernel
    def test():
        b = a[None]
        assert b[0] == 1
        assert b[1] == 2
        assert b[2] == 3
        b[0] = 5
        b[1] = 9
        b[2] = 7
        assert b[0] == 5
        assert b[1] == 9
        assert b[2] == 7
        assert a[None][0] == 1
        assert a[None][1] == 2
        assert a[None][2] == 3

    test()


@test_utils.test(debug=True)
def test_copy_matrix_in_quadrants_scope():
    @qd.kernel
    def test():
        a = qd.Vector([1, 2, 3])
        b = a
        assert b[0] == 1
        assert b[1] == 2
        assert b[2] == 3
        b[0] = 5
        b[1] = 9
        b[2] = 7
        assert b[0] == 5
        assert b[1] == 9
        assert b[2] == 7
        assert a[0] == 1
        assert a[1] == 2
        assert a[2] == 3

    test()


@test_utils.test()
def test_matrix_field_dynamic_index_multiple_materialize():
    @qd.kernel
    def empty():
        pass

    empty()

    n = 5
    a = qd.Vector.field(3, dtype=qd.i32, shape=n)

    @qd.kernel
    def func():
        for i in a:
            a[i][i % 3] = i

    func()
    for i in range(n):
        for j in range(3):
            assert a[i][j] == (i if j == i % 3 else 0)


@test_utils.test(debug=True)
def test_local_vector_initialized_in_a_loop():
    @qd.kernel
    def foo():
        for c in range(10):
            p = qd.Vector([c, c * 2])
            for i in range(2):
                assert p[i] == c * (i + 1)

    foo()


inplace_operation_types = [
    operator.iadd,
    operator.isub,
    operator.imul,
    operator.ifloordiv,
    operator.imod,
    operator.ilshift,
    operator.irshift,
    operator.ior,
    operator.ixor,
    operator.iand,
]


@test_utils.test(arch=[qd.cpu, qd.cuda, qd.amdgpu], real_matrix_scalarize=False)
def test_local_matrix_read_without_assign():
    @qd.kernel
    def local_vector_read(i: qd.i32) -> qd.i32:
        return qd.Vector([0, 1, 2])[i]

    for i in range(3):
        assert local_vector_read(i) == i


@test_utils.test(arch=[qd.cpu, qd.cuda, qd.amdgpu], real_matrix_scalarize=False, debug=True)
def test_elementwise_ops():
    @qd.kernel
    def test():
        # TODO: fix parallelization
        x = qd.Matrix([[1, 2], [3, 4]])
        # Unify rhs
        t1 = x + 10
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert t1[i, j] == x[i, j] + 10
        t2 = x * 2
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert t2[i, j] == x[i, j] * 2
        # elementwise-add
        t3 = t1 + t2
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert t3[i, j] == t1[i, j] + t2[i, j]
        # Unify lhs
        t4 = 1 / t1
        # these should be *exactly* equals
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert t4[i, j] == 1 / t1[i, j]
        t5 = 1 << x
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert t5[i, j] == 1 << x[i, j]
        t6 = 1 + (x // 2)
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert t6[i, j] == 1 + (x[i, j] // 2)

        # test floordiv
        y = qd.Matrix([[1, 2], [3, 4]], dt=qd.i32)
        z = y * 2
        factors = z // y
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert factors[i, j] == 2

        y1 = qd.Matrix([[1, 2], [3, 4]], dt=qd.f32)
        z1 = y1 * 2
        factors1 = z1 // y1
        qd.loop_config(serialize=True)
        for i in range(2):
            for j in range(2):
                assert factors1[i, j] == 2

    test()


@test_utils.test(debug=True)
def test_local_matrix_scalarize():
    @qd.kernel
    def func():
        x = qd.Matrix([[1, 2], [3, 4]], qd.f32)

        # Store
        x[0, 0] = 100.0

        # Load + Store
        x[0, 1] = x[0, 0]

        # Binary
        x[1, 0] = x[0, 1] + x[0, 1]

        # Unary
        x[1, 1] = qd.sqrt(x[1, 0])

        assert x[0, 0] == 100.0
        assert x[0, 1] == 100.0
        assert x[1, 0] == 200.0
        assert x[1, 1] < 14.14214
        assert x[1, 1] > 14.14213

    func()


@test_utils.test()
def test_vector_vector_t():
    @qd.kernel
    def foo() -> qd.f32:
        a = qd.Vector([1.0, 2.0])
        b = qd.Vector([1.0, 2.0])
        return a @ b

    assert foo() == test_utils.approx(5.0)


def _test_field_and_ndarray(field, ndarray, func, verify):
    @qd.kernel
    def kern_field(a: qd.template()):
        func(a)

    @qd.kernel
    def kern_ndarray(a: qd.types.ndarray()):
        func(a)

    kern_field(field)
    verify(field)
    kern_ndarray(ndarray)
    verify(ndarray)


@test_utils.test(debug=True)
def test_ternary_op_scalarize():
    @qd.kernel
    def test():
        cond = qd.Vector([1, 0, 1])
        x = qd.Vector([3, 3, 3])
        y = qd.Vector([5, 5, 5])

        z = qd.select(cond, x, y)

        assert z[0] == 3
        assert z[1] == 5
        assert z[2] == 3

    test()


@test_utils.test(debug=True)
def test_ternary_op_cond_is_scalar():
    @qd.kernel
    def test():
        x = qd.Vector([3, 3, 3])
        y = qd.Vector([5, 5, 5])

        for i in range(10):
            z = qd.select(i % 2, x, y)
            if i % 2 == 1:
                assert z[0] == x[0] and z[1] == x[1] and z[2] == x[2]
            else:
                assert z[0] == y[0] and z[1] == y[1] and z[2] == y[2]

    test()


@test_utils.test(debug=True)
def test_global_tmp_overwrite():
    # https://github.com/taichi-dev/taichi/issues/6663
    @qd.kernel
    def foo() -> qd.i32:
        p = qd.Matrix([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
        loop = 1
        sig = qd.Vector([0, 0, 0, 0])
        assert p[0, 0] == 1
        while loop == 1:
            assert p[0, 0] == 1
            loop = 0
            p[0, 0] = -1
        for i in range(1):
            sig[i] = 2
        return sig.sum() + p.sum()

    assert foo() == 4


@test_utils.test()
def test_cross_scope_matrix():
    a = qd.Matrix([[1, 2], [3, 4]])

    @qd.kernel
    def foo() -> qd.types.vector(4, qd.i32):
        return qd.Vector([a[0, 0], a[0, 1], a[1, 0], a[1, 1]])

    assert (foo() == [1, 2, 3, 4]).all()


@test_utils.test(debug=True)
def test_matrix_type_inference():
    @qd.kernel
    def foo():
        a = qd.Vector([1, 2.5])[1]  # should be f32 instead of i32
        assert a == 2.5

    foo()


    # TODO: As offset information per dimension is lacking, only the accumulated index is checked. These tests will not raise even if the individual indices are incorrect.
    # with pytest.raises(AssertionError, match=r"Out of bound access"):
    #    access_mat(0, 8)
    # with pytest.raises(AssertionError, match=r"Out of bound access"):
    #    access_mat(-1, 10)
    # with pytest.raises(AssertionError, match=r"Out of bound access"):
    #    access_mat(3, -1)


@test_utils.test()
def test_matrix_loop_unique():
    F_x = qd.Vector.field(3, dtype=qd.f32, shape=10)

    @qd.kernel
    def init():
        for u in F_x:
            F_x[u][1] += 1.0

    init()

    for u in range(10):
        assert F_x[u][1] == 1.0
