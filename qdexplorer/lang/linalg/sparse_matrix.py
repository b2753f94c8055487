"""`qd.linalg.SparseMatrixBuilder` and `qd.linalg.SparseMatrix`, over SciPy's sparse matrices.

A builder is a kernel argument (`A: qd.types.sparse_matrix_builder()`); inside a kernel `A[i, j] += v`
appends the triplet (i, j, v) to three fields through an atomic counter (frontend/stmts.py lowers
it), so every task stays self-contained and any number of threads may add at once. `build()`
sums duplicate triplets, as Quadrants' Eigen `setFromTriplets` does, into a SciPy CSR matrix, and
empties the builder, as Quadrants' does.
"""
from __future__ import annotations

import numpy as np

from ...ir.errors import QuadrantsRuntimeError
from ..field import Field, Ndarray
from ..compat.builder_type import SparseMatrixBuilderType, sparse_matrix_builder  # noqa: F401
from ...ir.dtypes import as_dtype, f32, i32


class SparseMatrixBuilder:
    """Collects (row, col, value) triplets from kernels; `build()` makes the matrix."""

    qd_triplet_builder = True  # what the frontend recognises `A[i, j] += v` by

    def __init__(self, num_rows=None, num_cols=None, max_num_triplets=0, dtype=f32, storage_format="col_major"):
        if num_rows is None:
            raise QuadrantsRuntimeError("SparseMatrixBuilder needs num_rows")
        self.num_rows, self.num_cols = int(num_rows), int(num_cols or num_rows)
        self.dtype = as_dtype(dtype) or f32
        self.max_num_triplets = int(max_num_triplets)
        self.storage_format = storage_format
        cap = max(1, self.max_num_triplets)
        self.rows, self.cols = Field(i32, (cap,), "triplet_rows"), Field(i32, (cap,), "triplet_cols")
        self.vals = Field(self.dtype, (cap,), "triplet_vals")
        self.count = Field(i32, (1,), "triplet_count")

    def _triplets(self):
        n = min(int(self.count.to_numpy()[0]), self.max_num_triplets)
        return self.rows.to_numpy()[:n], self.cols.to_numpy()[:n], self.vals.to_numpy()[:n]

    def print_triplets(self):
        r, c, v = self._triplets()
        print(f"n={len(v)}, m={self.num_rows}, num_triplets={len(v)} (max={self.max_num_triplets})")
        for a, b, x in zip(r, c, v):
            print(f"({a}, {b}) val={x}")

    def build(self, dtype=None, _format="CSR") -> "SparseMatrix":
        """The matrix of the triplets added so far (duplicates summed); the builder is then empty, as
        Quadrants' build() clears it (a builder filled again each step builds that step's matrix only)."""
        import scipy.sparse as sp  # here, not at the top: `import qdexplorer.lang` stays free of SciPy (0.3 s)
        r, c, v = self._triplets()
        self.count.fill(0)
        dt = self.dtype if dtype is None else (as_dtype(dtype) or self.dtype)
        m = sp.coo_matrix((v.astype(dt.numpy), (r, c)), shape=(self.num_rows, self.num_cols)).tocsr()
        m.sum_duplicates()
        return SparseMatrix(sm=m, dtype=dt)


class SparseMatrix:
    """A sparse matrix: + - (with another), * (a scalar, or elementwise with another), @ (a sparse
    matrix, a vector as NumPy array, field or qd.ndarray), transpose, element access."""

    def __init__(self, n=None, m=None, sm=None, dtype=f32, storage_format="col_major"):
        import scipy.sparse as sp  # here, not at the top: `import qdexplorer.lang` stays free of SciPy (0.3 s)
        self.dtype = as_dtype(dtype) or f32
        if sm is None:
            self.n, self.m = int(n), int(m or n)
            self.matrix = sp.csr_matrix((self.n, self.m), dtype=self.dtype.numpy)
        else:
            self.matrix = sp.csr_matrix(sm)
            self.n, self.m = self.matrix.shape

    def _same_shape(self, other):
        if (self.n, self.m) != (other.n, other.m):
            raise AssertionError(f"Dimension mismatch between sparse matrices ({self.n}, {self.m}) and "
                                 f"({other.n}, {other.m})")

    def _wrap(self, m) -> "SparseMatrix":
        return SparseMatrix(sm=m.astype(self.dtype.numpy), dtype=self.dtype)

    def __add__(self, other):
        self._same_shape(other)
        return self._wrap(self.matrix + other.matrix)

    def __sub__(self, other):
        self._same_shape(other)
        return self._wrap(self.matrix - other.matrix)

    def __iadd__(self, other):
        self._same_shape(other)
        self.matrix = (self.matrix + other.matrix).astype(self.dtype.numpy)
        return self

    def __isub__(self, other):
        self._same_shape(other)
        self.matrix = (self.matrix - other.matrix).astype(self.dtype.numpy)
        return self

    def __mul__(self, other):
        if isinstance(other, (int, float)):
            return self._wrap(self.matrix * other)
        if isinstance(other, SparseMatrix):
            self._same_shape(other)
            return self._wrap(self.matrix.multiply(other.matrix).tocsr())
        return None

    def __rmul__(self, other):
        return self.__mul__(other) if isinstance(other, (int, float)) else None

    def transpose(self) -> "SparseMatrix":
        return self._wrap(self.matrix.T.tocsr())

    @property
    def T(self) -> "SparseMatrix":
        return self.transpose()

    def __matmul__(self, other):
        if isinstance(other, SparseMatrix):
            if self.m != other.n:
                raise AssertionError(f"Dimension mismatch between sparse matrices ({self.n}, {self.m}) and "
                                     f"({other.n}, {other.m})")
            return self._wrap((self.matrix @ other.matrix).tocsr())
        if isinstance(other, (Field, np.ndarray)):
            vec = other.to_numpy() if isinstance(other, Field) else other
            if self.m != vec.shape[0]:
                raise AssertionError(f"Dimension mismatch between sparse matrix ({self.n}, {self.m}) and vector "
                                     f"({vec.shape})")
            return (self.matrix @ vec).astype(self.dtype.numpy)
        if isinstance(other, Ndarray):
            if self.m != other.shape[0]:
                raise QuadrantsRuntimeError(f"Dimension mismatch between sparse matrix ({self.n}, {self.m}) and "
                                            f"vector ({other.shape})")
            res = Ndarray(other.dtype, (self.n,))
            res.from_numpy((self.matrix @ other.to_numpy()).astype(other.dtype.numpy))
            return res
        raise QuadrantsRuntimeError(f"Sparse matrix-matrix/vector multiplication does not support {type(other)} "
                                    f"for now. Supported types are SparseMatrix, qd.field, and numpy ndarray.")

    def __getitem__(self, indices):
        return float(self.matrix[indices[0], indices[1]])

    def __setitem__(self, indices, value):
        m = self.matrix.tolil()
        m[indices[0], indices[1]] = value
        self.matrix = m.tocsr()

    @property
    def shape(self) -> tuple:
        return (self.n, self.m)

    def build_from_ndarray(self, ndarray):
        """Triplets (row, col, value) from a qd.ndarray (or Vector/Matrix ndarray), three numbers each."""
        import scipy.sparse as sp  # here, not at the top: `import qdexplorer.lang` stays free of SciPy (0.3 s)
        if not isinstance(ndarray, Ndarray):
            raise QuadrantsRuntimeError("Sparse matrix only supports building from [qd.ndarray, qd.Vector.ndarray, "
                                        "qd.Matrix.ndarray]")
        flat = ndarray.to_numpy().reshape(-1)
        if flat.size % 3:
            raise QuadrantsRuntimeError("The number of ndarray elements must have a length that is divisible by 3.")
        t = flat.reshape(-1, 3)
        m = sp.coo_matrix((t[:, 2], (t[:, 0].astype(np.int64), t[:, 1].astype(np.int64))), shape=(self.n, self.m))
        self.matrix = m.tocsr().astype(self.dtype.numpy)

    def mmwrite(self, filename):
        import scipy.io
        scipy.io.mmwrite(filename, self.matrix)

    def __str__(self) -> str:
        """Rows as Eigen prints a dense view: `[ 5, -1,  0]`, entries right-aligned to one width."""
        dense = self.matrix.toarray()
        cells = [[f"{v:g}" for v in row] for row in dense]
        w = max((len(c) for row in cells for c in row), default=1)
        return "\n".join("[" + ", ".join(c.rjust(w) for c in row) + "]" for row in cells)

    __repr__ = __str__
