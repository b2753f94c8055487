"""A float divided by a constant, as Quadrants computes it.

Under fast math (Quadrants' default, `qd.init(fast_math=True)`), Quadrants' algebraic simplifier
rewrites `a / c` of a float constant as `a * (1 / c)` with 1 / c rounded to the operand's type, on
every backend. A true division rounds differently in about a third of cases: `x / 3.0` gave 1,376
of 4,096 values one ulp away from Quadrants' (found by the corpus; mass-spring and particle programs
divide by `dx`, `n` or `2.0` everywhere). With fast_math=False both divide.
"""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.mark.parametrize("dtype, np_dtype", [(qd.f32, np.float32), (qd.f64, np.float64)])
def test_a_constant_divisor_is_a_multiply_by_its_rounded_reciprocal(dtype, np_dtype):
    qd.init(arch=qd.cpu)
    n = 4096
    x = qd.field(dtype, shape=n)
    out = qd.field(dtype, shape=(3, n))
    dx = 0.7

    @qd.kernel
    def go():
        for i in range(n):
            out[0, i] = x[i] / 3.0
            out[1, i] = x[i] / 10.0
            out[2, i] = x[i] / dx      # a Python global: a constant of the kernel

    xs = (np.random.default_rng(0).standard_normal(n) * 100).astype(np_dtype)
    x.from_numpy(xs)
    go()
    got = out.to_numpy()
    # a literal takes the other operand's type; a Python float global is a constant of the default
    # float type (f32), widened: Quadrants' 1 / float64(float32(0.7)) for an f64 field
    for row, c in enumerate((3.0, 10.0, np_dtype(np.float32(0.7)))):
        want = xs * (np_dtype(1) / np_dtype(c))
        assert (got[row] == want).all()
    if np_dtype is np.float32:
        assert (got[0] != xs / np.float32(3.0)).sum() > 1000   # the rule, not a division


def test_without_fast_math_it_is_a_division():
    qd.init(arch=qd.cpu, fast_math=False)
    n = 4096
    x = qd.field(qd.f32, shape=n)
    out = qd.field(qd.f32, shape=n)

    @qd.kernel
    def go():
        for i in range(n):
            out[i] = x[i] / 3.0

    xs = (np.random.default_rng(0).standard_normal(n) * 100).astype(np.float32)
    x.from_numpy(xs)
    go()
    assert (out.to_numpy() == xs / np.float32(3.0)).all()
