"""`qd.linalg.SparseSolver` (direct: LLT / LDLT / LU) and `qd.linalg.SparseCG`, with SciPy.

Quadrants uses Eigen on the CPU; here a Cholesky-type factorisation is SciPy's sparse LU (SuperLU)
of the same matrix, which gives the same solution to rounding for the symmetric positive definite
systems LLT/LDLT are for. `SparseCG` is Eigen's Jacobi-preconditioned conjugate gradient, with its
relative-residual stopping rule and its two printed lines.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import QuadrantsRuntimeError
from ..field import Field, Ndarray
from ...ir.dtypes import as_dtype, f32
from .sparse_matrix import SparseMatrix

SOLVER_TYPES, ORDERINGS = ["LLT", "LDLT", "LU"], ["AMD", "COLAMD"]


class SparseSolver:
    def __init__(self, dtype=f32, solver_type="LLT", ordering="AMD"):
        if solver_type not in SOLVER_TYPES or ordering not in ORDERINGS:
            raise QuadrantsRuntimeError(f"The solver type {solver_type} with {ordering} is not supported for now. "
                                        f"Only {SOLVER_TYPES} with {ORDERINGS} are supported.")
        self.dtype, self.solver_type, self.ordering = as_dtype(dtype) or f32, solver_type, ordering
        self.matrix: SparseMatrix | None = None
        self._lu = None
        self._ok = False

    @staticmethod
    def _type_assert(sparse_matrix):
        raise QuadrantsRuntimeError(f"The parameter type: {type(sparse_matrix)} is not supported in linear solvers "
                                    f"for now.")

    def compute(self, sparse_matrix):
        self.analyze_pattern(sparse_matrix)
        self.factorize(sparse_matrix)

    def analyze_pattern(self, sparse_matrix):
        if not isinstance(sparse_matrix, SparseMatrix):
            self._type_assert(sparse_matrix)
        if sparse_matrix.dtype != self.dtype:
            raise QuadrantsRuntimeError(f"The SparseSolver's dtype {self.dtype} is not consistent with the "
                                        f"SparseMatrix's dtype {sparse_matrix.dtype}.")
        self.matrix = sparse_matrix

    def factorize(self, sparse_matrix):
        import scipy.sparse.linalg as spla  # here: `import qdexplorer.lang` stays free of SciPy
        if not isinstance(sparse_matrix, SparseMatrix):
            self._type_assert(sparse_matrix)
        self.matrix = sparse_matrix
        try:
            self._lu = spla.splu(sparse_matrix.matrix.tocsc().astype(np.float64),
                                 permc_spec="COLAMD" if self.ordering == "COLAMD" else "MMD_AT_PLUS_A")
            self._ok = True
        except RuntimeError:  # singular: Eigen reports failure through info()
            self._lu, self._ok = None, False

    def solve(self, b):
        if self.matrix is None:
            raise QuadrantsRuntimeError("Please call compute() before calling solve().")
        if isinstance(b, Ndarray):
            out = Ndarray(b.dtype, (self.matrix.m,))
            out.from_numpy(self._solve(b.to_numpy()).astype(b.dtype.numpy))
            return out
        if isinstance(b, Field):
            return self._solve(b.to_numpy())
        if isinstance(b, np.ndarray):
            return self._solve(b)
        raise QuadrantsRuntimeError(f"The parameter type: {type(b)} is not supported in linear solvers for now.")

    def _solve(self, b: np.ndarray) -> np.ndarray:
        if self._lu is None:
            self._ok = False
            return np.zeros(self.matrix.m if self.matrix else len(b), self.dtype.numpy)
        x = self._lu.solve(np.asarray(b, np.float64))
        self._ok = bool(np.all(np.isfinite(x)))
        return x.astype(self.dtype.numpy)

    def info(self) -> bool:
        return self._ok


class SparseCG:
    """Conjugate gradient on a SparseMatrix: `x, converged = SparseCG(A, b, x0, max_iter, atol).solve()`."""

    def __init__(self, A: SparseMatrix, b, x0=None, max_iter=50, atol=1e-6):
        self.dtype, self.matrix, self.b = A.dtype, A, b
        self.max_iter, self.atol = int(max_iter), float(atol)
        self.x0 = None if x0 is None else (x0.to_numpy() if isinstance(x0, (Ndarray, Field)) else np.asarray(x0))

    def solve(self):
        """Eigen's `ConjugateGradient` (Jacobi preconditioner) in the matrix's precision, as Quadrants
        runs it on the CPU: stop when |r|^2 < atol^2 |b|^2; the count excludes the final iteration."""
        dt = np.dtype(self.dtype.numpy).type
        A = self.matrix.matrix.astype(dt)
        b = (self.b.to_numpy() if isinstance(self.b, (Ndarray, Field)) else np.asarray(self.b)).astype(dt)
        x = np.zeros(A.shape[1], dt) if self.x0 is None else self.x0.astype(dt).copy()
        diag = A.diagonal()
        inv = np.where(diag != 0, 1 / np.where(diag != 0, diag, 1), 1).astype(dt)
        rhs2 = dt(b @ b)
        it, err = 0, dt(0)
        if rhs2 == 0:
            x[:] = 0
        else:
            thresh = max(dt(self.atol * self.atol) * rhs2, np.finfo(dt).tiny)
            r = b - A @ x
            res2 = dt(r @ r)
            if res2 >= thresh:
                p = inv * r
                abs_new = dt(r @ p)
                while it < self.max_iter:
                    tmp = A @ p
                    alpha = abs_new / dt(p @ tmp)
                    x += alpha * p
                    r -= alpha * tmp
                    res2 = dt(r @ r)
                    if res2 < thresh:
                        break
                    z = inv * r
                    abs_old, abs_new = abs_new, dt(r @ z)
                    p = z + (abs_new / abs_old) * p
                    it += 1
            err = np.sqrt(res2 / rhs2)
        print(f"#iterations:     {it}\nestimated error: {float(err):g}")
        return x, bool(err <= self.atol)
