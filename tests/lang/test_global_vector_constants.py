"""A global `qd.Vector` / `qd.Matrix` of floats read in a kernel, against Quadrants.

Quadrants makes a Python-scope matrix a vector of default_fp constants in a kernel, so `h * g` with
h a Python float multiplies in f32, each operand rounded first: 0.003 * -1.2 is -0.0036000002 there.
Ours folded the product in Python's f64 and rounded it once (-0.0036): benchmark_xpbd_fem's
`vel[i] += h * gravity` differed from its first step (110 of 242 components). A scalar expression of
Python numbers alone (`h * -1.2`) stays Python's in both; a `dt=qd.f64` given makes no f64 constants
there either (`w * 0.1` is an f32 product stored into an f64 field).
"""
import numpy as np
import pytest

from tests.lang.quadrants_oracle import implementations


def _products(qd):
    h = 0.003
    g = qd.Vector([0, -1.2])
    m = qd.Matrix([[0.7, -1.3], [2.1, 0.11]])
    w = qd.Vector([0.1, 0.3], dt=qd.f64)
    out = qd.Vector.field(2, qd.f32, shape=7)
    out64 = qd.field(qd.f64, shape=2)

    @qd.kernel
    def k():
        out[0] = h * g
        out[1] = g * h
        out[2] = qd.Vector([h * -1.2, h * 1.7])
        out[3] = g / 0.7
        out[4] = g + 0.1
        v = g
        out[5] = v * h
        out[6] = m @ g * 0.3
        out64[0] = (w * 0.1)[0]
        out64[1] = (w * 0.7)[1]

    k()
    return np.concatenate([out.to_numpy().astype(np.float64).ravel(), out64.to_numpy()])


def test_global_vectors_compute_in_the_kernels_type_as_in_quadrants():
    got = []
    for qd in implementations():
        qd.init(arch=qd.cpu)
        try:
            got.append(_products(qd))
        finally:
            qd.reset()
    if len(got) < 2:
        pytest.skip("Quadrants is not installed")
    ours, theirs = got
    assert ours.tobytes() == theirs.tobytes(), f"{np.nonzero(ours != theirs)[0].tolist()} differ"
