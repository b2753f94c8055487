"""`qd.field(...)` and `qd.ndarray(...)`: allocation by element type.

The element type decides the storage: a scalar dtype gives one value per index, a vector or matrix
type (`qd.math.vec3`) gives its components as trailing axes. This module sits above both the
storage classes and the element types, so neither has to know the other.
"""
from __future__ import annotations
from .calls.caller import caller

from .host import tensor_layout
from .field import Field, Ndarray, lay_out_by_order
from .quant import QUANT_TYPES
from .vector_types import VectorType


def field(dtype, shape=None, order=None, name: str = "", offset=None, needs_grad: bool = False,
          needs_dual: bool = False, layout=None, ndim=None, **unused) -> Field:
    """`qd.field(qd.f32, shape=(n, m))`: a dense field; a vector or matrix dtype (`qd.math.vec3`) makes
    a field of vectors; `needs_grad=True` allocates `x.grad`. Without `shape=` the field waits to be
    placed in an SNode tree (`qd.root`). `offset=` makes its indices start there (`x[-4]` is the first
    element of `qd.field(qd.f32, 8, offset=-4)`)."""
    needs_dual = bool(needs_dual)  # `x.dual`, for forward mode (qd.ad.FwdMode)
    if isinstance(dtype, VectorType):  # Quadrants: Vector.field / Matrix.field (dtype's n, m, ...) take the rest
        return dtype.field(shape, name, needs_grad=needs_grad, needs_dual=needs_dual, offset=offset, order=order)
    if isinstance(dtype, QUANT_TYPES):  # stored encoded, in its raw integer type (quant.py)
        f = Field(dtype.raw, shape, name, offset=offset)
        f.quant = dtype
        return f
    f = Field(dtype, shape, name, needs_grad=needs_grad, needs_dual=needs_dual, offset=offset)
    tensor_layout.tag_order(f, order)
    lay_out_by_order(f)
    return f


def ndarray(dtype, shape, needs_grad: bool = False, **unused) -> Ndarray:
    """`qd.ndarray(qd.f32, shape=(n,))`: a host-allocated array to pass to kernels."""
    _refuse_dual(unused)
    if isinstance(dtype, VectorType):
        return dtype.ndarray(shape, needs_grad=needs_grad)
    return Ndarray(dtype, shape, needs_grad=needs_grad)


def _refuse_dual(options: dict):
    """`needs_dual=True` on a qd.ndarray: forward mode differentiates fields only here."""
    if options.get("needs_dual"):
        file, line = caller()
        raise NotImplementedError(f"{file}:{line}: qd.ndarray(needs_dual=True): forward-mode autodiff (.dual) of "
                                  f"ndarrays is not supported by qdexplorer.lang; use a qd.field with needs_dual=True")
