# mypy: disable-error-code="index"
# (kernel-language code: its vectors and matrices are indexed by the compiler, not by NumPy)
"""`qd.solve(A, b)`: a 2x2 or 3x3 linear solve per thread, with Quadrants' algorithm (Gauss
elimination with partial pivoting on the augmented matrix, python/quadrants/_funcs.py at 1.3.3),
so each thread's result is the one Quadrants computes, rounding included."""
from __future__ import annotations
from ..calls.runtime_api import float_type

from ..func import func
from ..intrinsics import abs, static  # noqa: A004
from ...ir.dtypes import f32
from ..vector_types import Matrix, Vector


@func
def _gauss_elimination_2x2(Ab, dt):
    if abs(Ab[0, 0]) < abs(Ab[1, 0]):
        for col in static(range(3)):
            t = Ab[0, col]
            Ab[0, col] = Ab[1, col]
            Ab[1, col] = t
    assert Ab[0, 0] != 0.0, "Matrix is singular in linear solve."
    scale = Ab[1, 0] / Ab[0, 0]
    Ab[1, 0] = 0.0
    for k in static(range(1, 3)):
        Ab[1, k] -= Ab[0, k] * scale
    x = Vector.zero(dt, 2)
    x[1] = Ab[1, 2] / Ab[1, 1]
    x[0] = (Ab[0, 2] - Ab[0, 1] * x[1]) / Ab[0, 0]
    return x


@func
def _gauss_elimination_3x3(Ab, dt):
    for i in static(range(3)):
        max_row = i
        max_v = abs(Ab[i, i])
        for j in static(range(i + 1, 3)):
            if abs(Ab[j, i]) > max_v:
                max_row = j
                max_v = abs(Ab[j, i])
        assert max_v != 0.0, "Matrix is singular in linear solve."
        if i != max_row:
            if max_row == 1:
                for col in static(range(4)):
                    t = Ab[i, col]
                    Ab[i, col] = Ab[1, col]
                    Ab[1, col] = t
            else:
                for col in static(range(4)):
                    t = Ab[i, col]
                    Ab[i, col] = Ab[2, col]
                    Ab[2, col] = t
        assert Ab[i, i] != 0.0, "Matrix is singular in linear solve."
        for j in static(range(i + 1, 3)):
            scale = Ab[j, i] / Ab[i, i]
            Ab[j, i] = 0.0
            for k in static(range(i + 1, 4)):
                Ab[j, k] -= Ab[i, k] * scale
    x = Vector.zero(dt, 3)
    for i in static(range(2, -1, -1)):
        x[i] = Ab[i, 3]
        for k in static(range(i + 1, 3)):
            x[i] -= Ab[i, k] * x[k]
        x[i] = x[i] / Ab[i, i]
    return x


@func
def _combine(A, b, dt):
    Ab = Matrix.zero(dt, A.n, A.n + 1)
    for i in static(range(A.n)):
        for j in static(range(A.n)):
            Ab[i, j] = A[i, j]
    for i in static(range(A.n)):
        Ab[i, A.n] = b[i]
    return Ab


def _size(n: int, m: int, bn: int) -> int:
    if n != m or n not in (2, 3):
        raise ValueError(f"qd.solve takes a 2x2 or 3x3 matrix, got {n}x{m}")
    if bn != n:
        raise ValueError(f"qd.solve: a {n}x{n} matrix and a vector of {bn} components")
    return n




@func
def solve(A, b, dt=None):
    """x with A @ x = b, for a 2x2 or 3x3 A (Quadrants' Gauss elimination with partial pivoting)."""
    Ab = _combine(A, b, static(float_type(dt)))
    if static(_size(A.n, A.m, b.n) == 2):
        return _gauss_elimination_2x2(Ab, static(float_type(dt)))
    else:
        return _gauss_elimination_3x3(Ab, static(float_type(dt)))


__all__ = ["solve"]
