import pytest

import qdexplorer.lang as qd
from tests.quadrants_compat.upstream import inf, isinf, isnan, nan, pi, vdir

from tests.quadrants_compat import test_utils


def _test_inf_nan(dt):
    @qd.kernel
    def make_tests():
        assert isnan(nan) == isnan(-nan) == True
        x = -1.0
        assert isnan(qd.sqrt(x)) == True
        assert isnan(inf) == isnan(1.0) == isnan(-1) == False
        assert isinf(inf) == isinf(-inf) == True
        assert isinf(nan) == isinf(1.0) == isinf(-1) == False

        v = qd.math.vec4(inf, -inf, 1.0, nan)
        assert all(isinf(v) == [1, 1, 0, 0])

        v = qd.math.vec4(nan, -nan, 1, inf)
        assert all(isnan(v) == [1, 1, 0, 0])

    make_tests()


@qd.func
def check_epsilon_equal(mat_cal, mat_ref, epsilon) -> int:
    assert mat_cal.n == mat_ref.n and mat_cal.m == mat_ref.m
    err = 0
    for i in qd.static(range(mat_cal.n)):
        for j in qd.static(range(mat_cal.m)):
            err = qd.abs(mat_cal[i, j] - mat_ref[i, j]) > epsilon
    return err


@pytest.mark.parametrize("dt", [qd.f32, qd.f64])
@test_utils.test()
def test_inf_nan_f32(dt):
    _test_inf_nan(dt)


@test_utils.test()
def test_vdir():
    @qd.kernel
    def make_test():
        assert all(vdir(pi / 2) == [0, 1])

    make_test()


