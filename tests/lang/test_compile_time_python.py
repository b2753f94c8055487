"""Compile-time Python in kernels, as Quadrants runs it: a Python call on constants is made while the
kernel compiles (`math.exp(2.0)`, `round(2.6)`, a helper on constants), and a plain Python function,
lambda or closure called on kernel values is traced into the kernel. A math function on a kernel
value is still refused with the qd twin to use, as Quadrants refuses it. Expected values are what
real Quadrants 1.3.3 gave for the same kernels on the CPU."""
import math

import numpy as np
import pytest

import qdexplorer.lang as qd
from qdexplorer.ir.errors import QdCompileError

C = 3.0


def helper(a, b):
    return a * 2 + b


sq = lambda v: v * v  # noqa: E731
g = lambda v: qd.sin(v) + 1.0  # noqa: E731


def make_scale(s):
    def scale(v):
        return v * s
    return scale


scale3 = make_scale(3.0)


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_python_calls_fold_on_constants_and_trace_on_kernel_values():
    r = qd.field(qd.f32, shape=12)

    @qd.kernel
    def k(x: qd.f32):
        r[0] = math.exp(2.0)
        r[1] = math.sqrt(C) + math.pi
        r[2] = x * math.log(10.0)
        r[3] = math.floor(2.7) + 0.5
        r[4] = round(2.6)
        r[5] = max(abs(-2.0), float(np.float32(1.5)))
        r[6] = helper(1.0, 2.0)
        r[7] = helper(x, 1.0)
        r[8] = sq(x)
        r[9] = sq(3.0)
        r[10] = g(x)
        r[11] = scale3(x)

    k(2.0)
    np.testing.assert_allclose(r.to_numpy(), [7.3891, 4.8736, 4.6052, 2.5, 3.0, 2.0, 4.0, 5.0, 4.0, 9.0, 1.9093,
                                              6.0], atol=1e-4)


def test_a_math_function_on_a_kernel_value_is_refused_with_the_qd_twin():
    r = qd.field(qd.f32, shape=1)

    @qd.kernel
    def k(x: qd.f32):
        r[0] = math.sin(x)

    with pytest.raises(QdCompileError, match="calling sin is not supported inside a kernel; use qd.sin"):
        k(1.0)
