"""Forward-mode autodiff (`qd.ad.FwdMode`, `.dual` fields): tangents against closed forms, through
branches and dynamic loops, and the seed handling Quadrants has."""
import math

import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_jvp_of_elementwise_math_matches_closed_forms():
    n = 4
    x = qd.field(qd.f64, shape=n, needs_dual=True)
    y = qd.field(qd.f64, shape=n, needs_dual=True)

    @qd.kernel
    def f():
        for i in range(n):
            v = x[i]
            y[i] = qd.sin(v) * v + qd.exp(v) / (1.0 + v * v) - qd.sqrt(v) + abs(v - 0.5) + v ** 3

    xs = np.array([0.3, 0.5, 1.2, 2.0])
    x.from_numpy(xs)
    seed = [1.0, 0.0, 2.0, -1.0]
    with qd.ad.FwdMode(loss=y, param=x, seed=seed):
        f()

    def d(v):
        sgn = int(v > 0.5) - int(v < 0.5)
        return (math.cos(v) * v + math.sin(v) + math.exp(v) / (1 + v * v) - math.exp(v) * 2 * v / (1 + v * v) ** 2
                - 0.5 / math.sqrt(v) + sgn + 3 * v * v)
    np.testing.assert_allclose(y.dual.to_numpy(), [s * d(v) for s, v in zip(seed, xs)], rtol=1e-12)
    assert x.dual.to_numpy().tolist() == [0.0] * n  # the seed is taken out on exit
    assert y.to_numpy()[0] == pytest.approx(math.sin(0.3) * 0.3 + math.exp(0.3) / 1.09 - math.sqrt(0.3) + 0.2
                                            + 0.027)


def test_tangent_through_a_dynamic_loop_a_branch_and_an_atomic_add():
    x = qd.field(qd.f32, shape=())
    total = qd.field(qd.f32, shape=())
    qd.root.lazy_dual()

    @qd.kernel
    def f(n: qd.i32):
        for i in range(4):
            p = 1.0
            for _ in range(n):  # p = x^n, a carried non-linear value: forward mode needs no stack
                p *= x[None]
            if i % 2 == 0:
                total[None] += p
            else:
                total[None] += 2.0 * x[None]

    x[None] = 1.5
    with qd.ad.FwdMode(loss=total, param=x):
        f(3)
    assert total[None] == pytest.approx(2 * 1.5 ** 3 + 2 * 3.0)
    assert total.dual[None] == pytest.approx(2 * 3 * 1.5 ** 2 + 2 * 2.0)


def test_kernels_outside_the_context_do_not_touch_duals_and_errors_are_clear():
    x = qd.field(qd.f32, shape=2, needs_dual=True)
    y = qd.field(qd.f32, shape=2, needs_dual=True)

    @qd.kernel
    def f():
        for i in range(2):
            y[i] = 3.0 * x[i]

    y.dual.fill(7.0)
    f()
    assert y.dual.to_numpy().tolist() == [7.0, 7.0]
    with pytest.raises(RuntimeError, match="seed"):
        with qd.ad.FwdMode(loss=y, param=x):
            f()
    z = qd.field(qd.f32, shape=2)
    with pytest.raises(RuntimeError, match="no dual"):
        with qd.ad.FwdMode(loss=z, param=x, seed=[1.0, 0.0]):
            f()


def test_vector_and_matrix_fields_take_needs_dual():
    v = qd.Vector.field(2, qd.f32, shape=3, needs_dual=True)
    m = qd.Matrix.field(2, 2, qd.f32, shape=3, needs_dual=True)
    f = qd.field(qd.math.vec3, shape=2, needs_dual=True)
    assert v.dual.shape == (3,) and m.dual.to_numpy().shape == (3, 2, 2) and f.dual.to_numpy().shape == (2, 3)
    assert v.has_dual() and not qd.field(qd.f32, shape=2).has_dual()
