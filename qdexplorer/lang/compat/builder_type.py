"""The annotation `qd.types.sparse_matrix_builder()`, apart from `linalg` (which sits above the
kernel machinery) so that `qd.types` can name it without importing the solvers."""
from __future__ import annotations

from ..template import Template


class SparseMatrixBuilderType(Template):
    """A `qd.linalg.SparseMatrixBuilder` argument: passed as a compile-time object, its triplet fields
    reached by the tasks like any field."""

    def __repr__(self) -> str:
        return "qd.types.sparse_matrix_builder()"


def sparse_matrix_builder() -> SparseMatrixBuilderType:
    return SparseMatrixBuilderType()
