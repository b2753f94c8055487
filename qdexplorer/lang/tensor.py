"""`qd.tensor`, `qd.Backend` and `qd.Tensor`: newer Quadrants' one allocator for both array kinds.

`qd.tensor(dtype, shape, backend=qd.Backend.FIELD | NDARRAY)` is a dispatcher over `qd.field` and
`qd.ndarray`; `qd.Tensor` annotates a kernel argument that takes either (it specialises on what it
is given, as `qd.template()` does). Quadrants wraps the result in a `Tensor` object; here the field
or ndarray itself is returned, and `isinstance(x, qd.Tensor)` holds for both.

`layout=` (a permutation of the axes giving the physical nesting order) is accepted and checked as
Quadrants checks it; storage stays in the canonical order, which every read and write through
indices, `to_numpy` and kernels sees identically (the permutation only changes which index varies
fastest in memory). `x.layout` reports it.
"""
from __future__ import annotations

from enum import IntEnum

from .host import host_matrix as _host_matrix, tensor_layout
from .alloc import field, ndarray
from .field import Field, Ndarray, Storage
from .vector_types import Matrix, Vector, VectorType, matrix, vector

_SCALAR_KWARGS = frozenset({"backend", "needs_grad", "layout"})
_VEC_MAT_KWARGS = frozenset({"backend", "needs_grad"})


class Backend(IntEnum):
    """Which of Quadrants' two array kinds `qd.tensor` allocates."""
    FIELD = 0
    NDARRAY = 1


class _TensorMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Storage)


class Tensor(metaclass=_TensorMeta):
    """`x: qd.Tensor`: a kernel argument taking a field or an ndarray (specialised per call)."""

    def __new__(cls, impl=None):
        """`qd.Tensor(field_or_ndarray)`: Quadrants wraps it; here the array itself stands for it."""
        if not isinstance(impl, Storage):
            raise TypeError(f"Tensor(impl) requires an Ndarray or Field; got {type(impl).__name__}")
        return impl


class _VectorMeta(_TensorMeta):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Storage) and len(getattr(obj, "elem_shape", ())) == 1


class _MatrixMeta(_TensorMeta):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Storage) and len(getattr(obj, "elem_shape", ())) == 2


class VectorTensor(Tensor, metaclass=_VectorMeta):
    """`isinstance(x, qd.VectorTensor)`: a field or ndarray of vectors (Quadrants' wrapper class)."""


class MatrixTensor(Tensor, metaclass=_MatrixMeta):
    """`isinstance(x, qd.MatrixTensor)`: a field or ndarray of matrices (Quadrants' wrapper class)."""


def _coerce_backend(backend) -> Backend:
    if isinstance(backend, Backend):
        return backend
    try:
        return Backend(backend)
    except (ValueError, TypeError):
        valid = ", ".join(f"qd.Backend.{m.name}" for m in Backend)
        raise ValueError(f"backend={backend!r} is not a valid qd.Backend; expected one of {valid}") from None


def _check_kwargs(kwargs: dict, factory: str, accepted: frozenset) -> None:
    if "order" in kwargs:
        if "layout" in accepted:
            raise TypeError(f"{factory}(...) does not accept order=; pass layout=(...) instead")
        raise TypeError(f"{factory}(...) does not accept order= (or layout=); use the underlying "
                        f"qd.Vector.field / qd.Matrix.field for non-default storage order")
    extra = set(kwargs) - accepted
    if extra:
        names = ", ".join(sorted(accepted | {"dtype", "shape"}))
        raise TypeError(f"{factory}() got unexpected keyword argument(s) {sorted(extra)!r}; accepted: {names}")


def _check_layout(layout, ndim: int) -> tuple | None:
    if layout is None:
        return None
    layout = tuple(layout)
    if len(layout) != ndim:
        raise ValueError(f"layout has {len(layout)} entries but shape has {ndim} dimensions; they must match")
    if sorted(layout) != list(range(ndim)):
        raise ValueError(f"layout={layout!r} is not a permutation of range({ndim})")
    return layout


def tensor(dtype, shape, *, backend=Backend.NDARRAY, layout=None, **kwargs):
    """A field (`backend=qd.Backend.FIELD`) or an ndarray (the default) of `dtype` and canonical `shape`."""
    if isinstance(dtype, Storage):
        raise TypeError(f"qd.tensor() allocates a new tensor; to wrap an existing {type(dtype).__name__}, "
                        f"use qd.wrap(impl) instead")
    if layout is not None and isinstance(dtype, VectorType):
        raise TypeError("layout= is not supported with compound dtypes (vector/matrix). "
                        "Use qd.Vector.tensor(...) or qd.Matrix.tensor(...) without layout= instead.")
    _check_kwargs(kwargs, "qd.tensor", _SCALAR_KWARGS)
    b = _coerce_backend(backend)
    shape_t = (shape,) if isinstance(shape, int) else tuple(shape)
    lay = _check_layout(layout, len(shape_t))
    needs_grad = bool(kwargs.get("needs_grad", False))
    out = field(dtype, shape, needs_grad=needs_grad) if b is Backend.FIELD else ndarray(dtype, shape,
                                                                                        needs_grad=needs_grad)
    if lay is not None and lay != tuple(range(len(lay))):  # the identity collapses to no tag, as Quadrants'
        for arr in (out, out.adjoints.grad):
            if arr is None:
                continue
            if isinstance(arr, Ndarray):
                arr._layout_tag = lay  # allocated canonical already: nothing to re-read (tensor_layout.py)
            else:
                arr._qd_layout = lay
    return out


def tensor_of(vector_type, shape, *, backend=Backend.NDARRAY, factory: str = "qd.Vector.tensor", **kwargs):
    """`qd.Vector.tensor(n, dtype, shape)` / `qd.Matrix.tensor(n, m, dtype, shape)`."""
    _check_kwargs(kwargs, factory, _VEC_MAT_KWARGS)
    b = _coerce_backend(backend)
    needs_grad = bool(kwargs.get("needs_grad", False))
    if b is Backend.FIELD:
        return vector_type.field(shape, needs_grad=needs_grad)
    return vector_type.ndarray(shape, needs_grad=needs_grad)


def wrap(impl):
    """Quadrants' `qd.wrap(field_or_ndarray)`: the same array (no wrapper object here)."""
    if not isinstance(impl, Storage):
        raise TypeError(f"qd.wrap() takes a qd.field or qd.ndarray, got {type(impl).__name__}")
    return impl


def _with_layout(arr, layout):
    """Quadrants' `_with_layout(ndarray, layout)`: tag an ndarray allocated at the physical shape with
    the canonical-axis permutation `layout`; the tag carries over to its gradient, as Quadrants'.
    (Quadrants unwraps its `qd.Tensor` first; `qd.tensor` returns the array itself here.)"""
    if not isinstance(arr, Ndarray):
        raise TypeError(f"_with_layout tags a qd.ndarray, got {type(arr).__name__}")
    layout = tensor_layout.check_layout(layout, len(arr.shape))
    arr._qd_layout = layout
    grad = arr.adjoints.grad
    if grad is not None and grad._qd_layout != layout:
        grad._qd_layout = layout
    return arr


__all__ = ["Backend", "Tensor", "VectorTensor", "MatrixTensor", "tensor", "wrap", "Field", "Ndarray"]


def _vector_tensor(n, dtype, shape, **kwargs):
    """`qd.Vector.tensor(n, dtype, shape, backend=qd.Backend.FIELD | NDARRAY)`."""
    return tensor_of(vector(n, dtype), shape, factory="qd.Vector.tensor", **kwargs)


def _matrix_tensor(n, m, dtype, shape, **kwargs):
    """`qd.Matrix.tensor(n, m, dtype, shape, backend=qd.Backend.FIELD | NDARRAY)`."""
    return tensor_of(matrix(n, m, dtype), shape, factory="qd.Matrix.tensor", **kwargs)


# set here, above vector_types.py (which allocates nothing through this module), so no import goes round
Vector.tensor = staticmethod(_vector_tensor)  # type: ignore[attr-defined]
Matrix.tensor = staticmethod(_matrix_tensor)  # type: ignore[attr-defined]
