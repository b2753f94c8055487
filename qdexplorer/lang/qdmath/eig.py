# mypy: ignore-errors
# (a @qd.func: its body is the kernel language)
"""`qd.eig(A, dt)`: eigenvalues and right eigenvectors of a real 2x2 matrix, in complex form, as
Quadrants 1.3.3 computes them (quadrants/_funcs.py `_eig2x2`, Apache-2.0, Genesis-Embodied-AI/quadrants,
ported by changing its imports): eigenvalues a 2x2 matrix (one eigenvalue per row: real, imaginary),
eigenvectors 4x2 (one per column, each entry as real, imaginary)."""
from .. import intrinsics as ops
from ..func import func
from ...ir.dtypes import f32
from ..vector_types import Matrix, Vector
from ..calls.runtime_api import float_type


@func
def _eig2x2(A, dt):
    tr = A.trace()
    det = A.determinant()
    gap = tr**2 - 4 * det
    lambda1 = Vector.zero(dt, 2)
    lambda2 = Vector.zero(dt, 2)
    v1 = Vector.zero(dt, 4)
    v2 = Vector.zero(dt, 4)
    if gap > 0:
        lambda1 = Vector([tr + ops.sqrt(gap), 0.0], dt=dt) * 0.5
        lambda2 = Vector([tr - ops.sqrt(gap), 0.0], dt=dt) * 0.5
        A1 = A - lambda1[0] * Matrix.identity(dt, 2)
        A2 = A - lambda2[0] * Matrix.identity(dt, 2)
        if all(A1 == Matrix.zero(dt, 2, 2)) and all(A1 == Matrix.zero(dt, 2, 2)):
            v1 = Vector([0.0, 0.0, 1.0, 0.0]).cast(dt)
            v2 = Vector([1.0, 0.0, 0.0, 0.0]).cast(dt)
        else:
            v1 = Vector([A2[0, 0], 0.0, A2[1, 0], 0.0], dt=dt).normalized()
            v2 = Vector([A1[0, 0], 0.0, A1[1, 0], 0.0], dt=dt).normalized()
    else:
        lambda1 = Vector([tr, ops.sqrt(-gap)], dt=dt) * 0.5
        lambda2 = Vector([tr, -ops.sqrt(-gap)], dt=dt) * 0.5
        A1r = A - lambda1[0] * Matrix.identity(dt, 2)
        A1i = -lambda1[1] * Matrix.identity(dt, 2)
        A2r = A - lambda2[0] * Matrix.identity(dt, 2)
        A2i = -lambda2[1] * Matrix.identity(dt, 2)
        v1 = Vector([A2r[0, 0], A2i[0, 0], A2r[1, 0], A2i[1, 0]], dt=dt).normalized()
        v2 = Vector([A1r[0, 0], A1i[0, 0], A1r[1, 0], A1i[1, 0]], dt=dt).normalized()
    eigenvalues = Matrix.rows([lambda1, lambda2])
    eigenvectors = Matrix.cols([v1, v2])
    return eigenvalues, eigenvectors


@func
def eig(A, dt=None):
    """`qd.eig(A, dt)` of a 2x2 matrix (Quadrants supports only 2x2 too); `dt` defaults to the
    program's default float, as Quadrants'."""
    return _eig2x2(A, ops.static(float_type(dt)))
