"""`qd.linalg`: sparse matrices built in kernels, direct and conjugate-gradient sparse solvers, and
the matrix-free CG / BiCGSTAB solvers. The module also carries the names Quadrants' own `qd.linalg`
happens to expose (`qd.linalg.field`, `kernel`, ...), the same objects as the top level's."""
from math import sqrt  # noqa: F401

from ..alloc import field  # noqa: F401
from ...ir.errors import QuadrantsRuntimeError, QuadrantsTypeError  # noqa: F401
from ..func import data_oriented  # noqa: F401
from ..intrinsics import grouped  # noqa: F401
from ..kernel import kernel  # noqa: F401
from ..template import template  # noqa: F401
from .matrixfree_cg import LinearOperator, MatrixFreeBICGSTAB, MatrixFreeCG  # noqa: F401
from .sparse_matrix import SparseMatrix, SparseMatrixBuilder  # noqa: F401
from .sparse_solver import SparseCG, SparseSolver  # noqa: F401
from ..compat import surface as _compat

__getattr__ = _compat.module_getattr("qd.linalg", __name__)
