import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_func_def_in_kernel():
    @qd.kernel
    def kernel():
        @qd.func
        def func():
            return 1

        print(func())

    with pytest.raises(qd.QuadrantsCompilationError):
        kernel()


@test_utils.test()
def test_func_def_in_func():
    @qd.func
    def func():
        @qd.func
        def func2():
            return 1

        return func2()

    @qd.kernel
    def kernel():
        print(func())

    with pytest.raises(qd.QuadrantsCompilationError):
        kernel()


@test_utils.test()
def test_nested_ndrange():
    @qd.kernel
    def func():
        for i in qd.ndrange(qd.ndrange(1)):
            pass

    with pytest.raises(qd.QuadrantsCompilationError):
        func()


@test_utils.test()
def test_is():
    b = qd.field(qd.i32, shape=())
    c = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        a = b is c

    with pytest.raises(qd.QuadrantsCompilationError):
        func()


@test_utils.test()
def test_is_not():
    b = qd.field(qd.i32, shape=())
    c = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        a = b is not c

    with pytest.raises(qd.QuadrantsCompilationError):
        func()


@test_utils.test()
def test_in():
    b = qd.field(qd.i32, shape=())
    c = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        a = b in c

    with pytest.raises(qd.QuadrantsCompilationError):
        func()


@test_utils.test()
def test_not_in():
    b = qd.field(qd.i32, shape=())
    c = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        a = b not in c

    with pytest.raises(qd.QuadrantsCompilationError):
        func()


@test_utils.test()
def test_expr_set():
    @qd.kernel
    def func():
        x = {2, 4, 6}

    with pytest.raises(qd.QuadrantsCompilationError):
        func()


