import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test(debug=True)
def test_kernel_position_only_args():
    @qd.kernel
    def foo(a: qd.i32, b: qd.i32):
        assert a == 1
        assert b == 2

    foo(1, 2)


@test_utils.test(debug=True)
def test_kernel_keyword_args():
    @qd.kernel
    def foo(a: qd.i32, b: qd.i32):
        assert a == 1
        assert b == 2

    foo(1, b=2)


@test_utils.test(debug=True)
def test_function_keyword_args():
    @qd.func
    def foo(a, b, c=3):
        assert a == 1
        assert b == 2
        assert c == 3

    @qd.func
    def bar(a, b, c=3):
        assert a == 1
        assert b == 2
        assert c == 4

    @qd.func
    def all_default(a=1, b=2, c=3):
        assert a == 1
        assert b == 2
        assert c == 3

    @qd.func
    def do_nothing():
        pass

    @qd.kernel
    def baz():
        foo(1, b=2)
        bar(b=2, a=1, c=4)
        all_default()
        do_nothing()

    baz()


@test_utils.test()
def test_func_scalar_arg_cast():
    @qd.func
    def bar(a: qd.i32) -> qd.f32:
        return a

    @qd.kernel
    def foo(a: qd.f32) -> qd.f32:
        return bar(a)

    assert foo(1.5) == 1.0


