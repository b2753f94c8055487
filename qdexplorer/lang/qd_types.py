"""`qd.types`: the annotation and element types a kernel signature or a field names.

It sits above the modules it gathers (scalar dtypes, vector and matrix types, templates), so each
of those stays free of the others.
"""
from __future__ import annotations

from ..ir import dtypes as T
from .host.buffer_view import BufferViewType
from .compat.builder_type import sparse_matrix_builder
from .func import ref
from .template import Template, template
from ..ir.dtypes import NdarrayType, as_dtype, f32
from .struct_types import struct
from .vector_types import VectorType, matrix, vector
from .compat import surface as compat
from . import primitive_types as _primitive_types


def _make_ndarray(dtype=None, ndim=None, element_dim=None, element_shape=None, field_dim=None, needs_grad=None,
                  boundary="unsafe", **unused) -> NdarrayType:
    """`qd.types.ndarray(dtype, ndim)`; a vector or matrix dtype makes its components trailing axes,
    and a bare `qd.types.vector()` / `matrix()` takes the element shape from the call. Quadrants'
    older `element_dim=` / `element_shape=` name the element the same way (a vector or matrix type)."""
    if field_dim is not None:
        raise ValueError("The field_dim argument for ndarray type is already deprecated. Please use ndim instead.")
    if element_dim is not None or element_shape is not None:
        dtype = _element_type(element_dim, element_shape, dtype)
    elem, rank = (), None
    if isinstance(dtype, VectorType) and dtype.is_bare:  # any vector / matrix: dtype and size from the call
        rank, dtype = dtype.rank, dtype.dtype
    elif isinstance(dtype, VectorType):
        elem, dtype = dtype.shape, (dtype.dtype or f32)
    if dtype is not None and as_dtype(dtype) is None:
        raise TypeError(f"ndarray dtype must be a qd scalar, vector or matrix type, got {dtype!r}")
    if ndim is not None and not (0 <= int(ndim) <= 8):  # Quadrants' limit of index axes
        raise TypeError(f"ndarray ndim must be 0 to 8, got {ndim}")
    boundary = getattr(boundary, "name", boundary)  # a BoundaryMode member or its name
    if str(boundary).lower() not in ("unsafe", "clamp"):
        raise ValueError(f"ndarray boundary must be 'unsafe' or 'clamp', got {boundary!r}")
    return NdarrayType(as_dtype(dtype) if dtype is not None else None, ndim, tuple(elem), rank,
                       None if needs_grad is None else bool(needs_grad), str(boundary).lower())


def _element_type(element_dim, element_shape, dtype):
    """Quadrants' _make_matrix_dtype_from_element_shape: the vector or matrix type they describe."""
    if isinstance(dtype, VectorType):
        raise TypeError(f'Cannot specifiy matrix dtype "{dtype}" and element shape or dim at the same time.')
    if element_dim == 0 or (element_shape is not None and len(element_shape) == 0):
        return dtype
    if element_dim is not None:
        if element_dim < 0 or element_dim > 2:
            raise ValueError("Only scalars, vectors, and matrices are allowed as elements of qd.types.ndarray()")
        if element_shape is not None and len(element_shape) != element_dim:
            raise ValueError(f"Both element_shape and element_dim are specified, but shape doesn't match specified "
                             f"dim: {len(element_shape)}!={element_dim}")
        if element_shape is None:
            return vector(None, dtype) if element_dim == 1 else matrix(None, None, dtype)
    if len(element_shape) > 2:
        raise ValueError("Only scalars, vectors, and matrices are allowed as elements of qd.types.ndarray()")
    if len(element_shape) == 1:
        return vector(element_shape[0], dtype)
    return matrix(element_shape[0], element_shape[1], dtype)


class _NDArrayAlias:
    """`qd.types.ndarray(dtype, ndim)` and its subscript spelling `qd.types.ndarray[qd.f32, 2]` (one
    object, as Quadrants' `NdarrayType` class is both; `qd.types.NDArray` is the same)."""

    __name__ = "ndarray"

    def __getitem__(self, item):
        if not isinstance(item, tuple):
            item = (item,)
        return _make_ndarray(*item)

    def __call__(self, dtype=None, ndim=None, element_dim=None, element_shape=None, field_dim=None,
                 needs_grad=None, boundary="unsafe", **unused) -> NdarrayType:
        return _make_ndarray(dtype, ndim, element_dim, element_shape, field_dim, needs_grad, boundary, **unused)

    def __repr__(self) -> str:
        return "qd.types.ndarray"


ndarray = NDArray = _NDArrayAlias()


def is_integral(dt) -> bool:
    d = as_dtype(dt)
    return d is not None and d.is_int


def is_real(dt) -> bool:
    d = as_dtype(dt)
    return d is not None and d.is_float


from . import quant as _quant  # noqa: E402


def is_signed(dt) -> bool:
    d = as_dtype(dt)
    return d is not None and (d.is_float or d.kind == "i")


def is_tensor(t) -> bool:
    """Whether `t` is a vector or matrix type (Quadrants' tensor types)."""
    return isinstance(t, VectorType)


class _Quant:
    """`qd.types.quant`: the quantized types (quant.py)."""
    int = staticmethod(_quant.int)
    fixed = staticmethod(_quant.fixed)
    float = staticmethod(_quant.float)


class _TypesNamespace:
    ndarray = staticmethod(ndarray)
    is_integral, is_real = staticmethod(is_integral), staticmethod(is_real)
    is_signed, is_tensor = staticmethod(is_signed), staticmethod(is_tensor)
    Template = Template
    u1 = uint1 = T.u1
    int8, int16, int32, int64 = T.i8, T.i16, T.i32, T.i64
    uint8, uint16, uint32, uint64 = T.u8, T.u16, T.u32, T.u64
    float16, float32, float64 = T.f16, T.f32, T.f64

    sparse_matrix_builder = staticmethod(sparse_matrix_builder)
    ref = staticmethod(ref)
    BufferViewType = BufferViewType
    quant = _Quant()

    def __getattr__(self, name: str):
        compat.refuse_attr("qd.types", self, name)
    NDArray = NDArray
    vector = staticmethod(vector)
    matrix = staticmethod(matrix)
    template = staticmethod(template)
    struct = staticmethod(struct)
    f32, f64, i32, i64, u32 = T.f32, T.f64, T.i32, T.i64, T.u32
    f16, i8, i16, u8, u16, u64 = T.f16, T.i8, T.i16, T.u8, T.u16, T.u64

    @property
    def primitive_types(self):
        """Quadrants' `qd.types.primitive_types` module (its dtypes and their sets)."""
        return _primitive_types


types = _TypesNamespace()
