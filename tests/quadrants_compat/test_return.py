import sys
from typing import Tuple

import pytest
from pytest import approx

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_return_without_type_hint():
    @qd.kernel
    def kernel():
        return 1

    with pytest.raises(qd.QuadrantsCompilationError):
        kernel()


def test_const_func_ret():
    qd.init()

    @qd.kernel
    def func1() -> qd.f32:
        return 3

    @qd.kernel
    def func2() -> qd.i32:
        return 3.3  # return type mismatch, will be auto-casted into qd.i32

    assert func1() == test_utils.approx(3)
    assert func2() == 3


@test_utils.test()
def test_return_inside_static_for():
    @qd.kernel
    def foo() -> qd.i32:
        a = 0
        for i in qd.static(range(10)):
            a += i * i
            if qd.static(i == 8):
                return a

    assert foo() == 204


@test_utils.test()
def test_void_return():
    @qd.kernel
    def foo():
        return

    foo()


@test_utils.test(exclude=[qd.metal, qd.vulkan])
def test_return_uint64():
    @qd.kernel
    def foo() -> qd.u64:
        return qd.u64(2**64 - 1)

    assert foo() == 2**64 - 1


@test_utils.test(exclude=[qd.metal, qd.vulkan])
def test_return_uint64_vec():
    @qd.kernel
    def foo() -> qd.types.vector(2, qd.u64):
        return qd.Vector([qd.u64(2**64 - 1), qd.u64(2**64 - 1)])

    assert foo()[0] == 2**64 - 1


@test_utils.test(print_full_traceback=False)
def test_return_type_mismatch_1():
    with pytest.raises(qd.QuadrantsCompilationError):

        @qd.kernel
        def foo() -> qd.i32:
            return qd.math.vec3([1, 2, 3])

        foo()


@test_utils.test(print_full_traceback=False)
def test_return_type_mismatch_2():
    with pytest.raises(qd.QuadrantsCompilationError):

        @qd.kernel
        def foo() -> qd.math.vec4:
            return qd.math.vec3([1, 2, 3])

        foo()


@test_utils.test()
def test_func_scalar_return_cast():
    @qd.func
    def bar(a: qd.f32) -> qd.i32:
        return a

    @qd.kernel
    def foo(a: qd.f32) -> qd.f32:
        return bar(a)

    assert foo(1.5) == 1.0


@test_utils.test(exclude=[qd.amdgpu])
def test_ret_4k():
    vec1024 = qd.types.vector(1024, qd.i32)

    @qd.kernel
    def foo() -> vec1024:
        ret = vec1024(0)
        for i in range(1024):
            ret[i] = i
        return ret

    ret = foo()
    for i in range(1024):
        assert ret[i] == i
