import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@pytest.mark.parametrize("dtype", [qd.u8, qd.u16, qd.u32])
@test_utils.test()
def test_cast_uint_to_float(dtype):
    @qd.kernel
    def func(a: dtype) -> qd.f32:
        return qd.cast(a, qd.f32)

    @qd.kernel
    def func_sugar(a: dtype) -> qd.f32:
        return qd.f32(a)

    assert func(255) == func_sugar(255) == 255


@pytest.mark.parametrize("dtype", [qd.u8, qd.u16, qd.u32])
@test_utils.test()
def test_cast_float_to_uint(dtype):
    @qd.kernel
    def func(a: qd.f32) -> dtype:
        return qd.cast(a, dtype)

    @qd.kernel
    def func_sugar(a: qd.f32) -> dtype:
        return dtype(a)

    assert func(255) == func_sugar(255) == 255


@test_utils.test()
def test_cast_f32():
    z = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        z[None] = qd.cast(1e9, qd.f32) / qd.cast(1e6, qd.f32) + 1e-3

    func()
    assert z[None] == 1000


@test_utils.test(require=qd.extension.data64)
def test_cast_f64():
    z = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        z[None] = qd.cast(1e13, qd.f64) / qd.cast(1e10, qd.f64) + 1e-3

    func()
    assert z[None] == 1000


@pytest.mark.parametrize("dtype", [qd.f32, qd.f64])
def test_cast_default_fp(dtype):
    qd.init(default_fp=dtype)

    @qd.kernel
    def func(x: int, y: int) -> float:
        return qd.cast(x, float) * float(y)

    assert func(23, 4) == pytest.approx(23.0 * 4.0)


@test_utils.test()
def test_cast_within_while():
    ret = qd.field(qd.i32, shape=())

    @qd.kernel
    def func():
        t = 10
        while t > 5:
            t = 1.0
            break
        ret[None] = t

    func()


