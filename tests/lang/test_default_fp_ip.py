"""qd.init(default_fp=qd.f64, default_ip=qd.i64) reaches every place a type is implied: integer
division, int() / float(), math on integers, vector literals, qd.solve and qd.svd. Before, these
stayed f32 / i32 and gave silently rounded or wrapped answers. Expected values are real Quadrants
1.3.3's on the CPU."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def _wide():
    qd.init(arch=qd.cpu, default_fp=qd.f64, default_ip=qd.i64)
    yield
    qd.reset()


def test_implied_types_follow_default_fp_and_default_ip():
    y = qd.field(qd.f64, shape=6)
    z = qd.field(qd.i64, shape=2)

    @qd.kernel
    def k(a: qd.i32, b: qd.i32, f: qd.f64):
        y[0] = a / b
        y[1] = float(a) / 3
        y[2] = qd.Vector([1.001, 2.0])[0]
        y[3] = qd.Matrix([[1.0, 1.001]])[0, 1]
        y[4] = 0.1 + a
        y[5] = qd.svd(qd.Matrix([[1.001, 0.3], [0.2, 1.7]]))[1][0, 0]
        z[0] = int(f * 1e12)
        z[1] = qd.cast(f, int)

    k(1, 3, 1.5)
    np.testing.assert_allclose(y.to_numpy(), [1 / 3, 1 / 3, 1.001, 1.001, 1.1, 1.7811347610458248], rtol=1e-15)
    assert z.to_numpy().tolist() == [1500000000000, 1]


def test_solve_in_f64():
    x = qd.Vector.field(2, dtype=qd.f64, shape=())

    @qd.kernel
    def solve():
        x[None] = qd.solve(qd.Matrix([[1.0, 1.0], [1.0, 1.001]]), qd.Vector([3.0, 15.0]))

    solve()
    np.testing.assert_allclose(x.to_numpy(), [-11997.000000001322, 12000.000000001322], rtol=1e-13)


def test_python_int_and_float_are_the_defaults_and_the_defaults_are_the_registered_dtypes():
    import copy
    from qdexplorer.lang.calls import runtime_api

    @qd.kernel
    def func(x: float, y: float) -> int:
        return qd.cast(x, int) * int(y)

    assert func(23.3, 4.6) == 92 and func(1000000000, 233) == 233000000000  # i64, as Quadrants
    qd.init(arch=qd.cpu, default_fp=copy.deepcopy(qd.f32), default_ip=copy.deepcopy(qd.i32))
    assert runtime_api._config["default_fp"] is qd.f32 and runtime_api._config["default_ip"] is qd.i32
