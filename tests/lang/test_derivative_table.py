"""One derivative table for both autodiff modes: for every differentiable unary function, the
gradient from `kernel.grad()` (reverse), the tangent from `qd.ad.FwdMode` (forward) and a central
finite difference in float64 agree."""
import math

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.autodiff import derivatives

# points inside each function's domain, away from kinks
POINTS = {"sqrt": 0.7, "rsqrt": 0.7, "sin": 0.4, "cos": 0.4, "tan": 0.3, "exp": 0.3, "log": 1.7,
          "tanh": 0.5, "asin": 0.35, "acos": 0.35, "atan": 0.8, "abs": -0.6}
PY = {"rsqrt": lambda x: 1 / math.sqrt(x)}


def test_the_table_covers_every_function_checked_here():
    assert set(derivatives.UNARY) == set(POINTS)


@pytest.mark.parametrize("fn", sorted(POINTS))
def test_forward_reverse_and_finite_difference_agree(fn):
    qd.init(arch=qd.cpu, default_fp=qd.f64)
    op = getattr(qd, fn)
    x = qd.field(qd.f64, shape=(), needs_grad=True, needs_dual=True)
    y = qd.field(qd.f64, shape=(), needs_grad=True, needs_dual=True)

    @qd.kernel
    def f():
        y[None] = op(x[None])

    x0 = POINTS[fn]
    x[None] = x0
    f()
    y.grad[None] = 1.0
    f.grad()
    reverse = x.grad[None]
    with qd.ad.FwdMode(loss=y, param=x):
        f()
    forward = y.dual[None]
    py = PY.get(fn) or getattr(math, fn, None) or abs
    h = 1e-6
    fd = (py(x0 + h) - py(x0 - h)) / (2 * h)
    assert reverse == pytest.approx(forward, rel=1e-12, abs=1e-12)
    assert reverse == pytest.approx(fd, rel=1e-6)
    assert np.isfinite(reverse)
