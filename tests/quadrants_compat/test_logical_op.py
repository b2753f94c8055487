import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test(debug=True)
def test_logical_and_i32():
    @qd.kernel
    def func(x: qd.i32, y: qd.i32) -> qd.i32:
        return x and y

    assert func(1, 2) == 2
    assert func(2, 1) == 1
    assert func(0, 1) == 0
    assert func(1, 0) == 0


@test_utils.test(debug=True)
def test_logical_or_i32():
    @qd.kernel
    def func(x: qd.i32, y: qd.i32) -> qd.i32:
        return x or y

    assert func(1, 2) == 1
    assert func(2, 1) == 2
    assert func(1, 0) == 1
    assert func(0, 1) == 1


# FIXME: bool vectors not supported on spir-v
