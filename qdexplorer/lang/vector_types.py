"""Small vector and matrix types: `qd.Vector`, `qd.Matrix`, `qd.math.vec3`, `qd.types.vector(n, dt)`.

Inside kernels they lower to one scalar per component (`frontend/vectors.py`); as an ndarray or
field element type their components are trailing array axes. From Python they build NumPy arrays,
so helper code and checks can share them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .host import host_matrix as H, tensor_layout
from .field import ELEMENT_TYPE, Field, Ndarray, lay_out_by_order
from ..ir.dtypes import DType, as_dtype, f32, i32, u32
from ..ir.errors import QuadrantsSyntaxError
from .compat.surface import refuse_use
from .quant import QUANT_TYPES
from .calls.caller import caller


@dataclass(frozen=True)
class VectorType:
    """`qd.types.vector(3, qd.f32)` / `qd.types.matrix(2, 2, qd.f32)`; `dtype` None adopts the values'.

    Bare `qd.types.vector()` / `qd.types.matrix()` (n None, `rank` 1 or 2) only make sense as an
    ndarray annotation's element type: any vector (matrix), specialised on the first call's array."""
    n: int | None
    m: int | None = None
    dtype: DType | None = None
    rank: int = 1      # 1: a vector, 2: a matrix
    unpacked: bool = False  # `qd.types.vector(n, dt, unpacked=True)`: n scalar members of a @qd.dataclass

    @property
    def is_bare(self) -> bool:
        return self.n is None

    @property
    def shape(self) -> tuple:
        if self.is_bare:
            raise TypeError(f"{self!r} has no size: give it one (qd.types.vector(3, qd.f32)) to build values, "
                            f"fields or ndarrays; the bare form is only an ndarray annotation's element type")
        return (self.n,) if self.m is None else (self.n, self.m)

    def __repr__(self) -> str:
        dt = f", {self.dtype!r}" if self.dtype else ""
        if self.unpacked:
            dt += ", unpacked=True"
        if self.is_bare:
            return f"qd.types.{'vector' if self.rank == 1 else 'matrix'}()"
        return f"qd.types.vector({self.n}{dt})" if self.m is None else f"qd.types.matrix({self.n}, {self.m}{dt})"

    def _refuse_unpacked(self, what: str):
        if self.unpacked:
            file, line = caller()
            raise QuadrantsSyntaxError(
                f"cannot {what} a vector declared with unpacked=True; the unpacked layout is only honored on "
                "``@qd.dataclass`` field annotations. Either drop ``unpacked=True`` or use the type in an annotation "
                "like ``r: qd.types.vector(N, dtype, unpacked=True)`` on a class decorated with @qd.dataclass.",
                file, line)

    def __call__(self, *values):
        """From Python: a vector/matrix of this shape (`vec3(1, 2, 3)`, `vec3(0)` broadcasts)."""
        self._refuse_unpacked("instantiate")
        parts = [np.ravel(np.asarray(v)) for v in values]  # vec3i(v2, 1.0): components concatenated
        flat = (np.concatenate(parts) if parts else np.zeros(0)).astype((self.dtype or f32).numpy)
        size = int(np.prod(self.shape))
        if flat.size == 1:
            flat = np.full(size, flat[0])
        return H.host(flat.reshape(self.shape))

    def get_shape(self) -> tuple:
        return self.shape

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def to_string(self) -> str:
        return repr(self)

    def check_matched(self, other, arg_name: str = "") -> bool:
        """Whether values of `other` (a type) fit this type (same shape; dtype if both name one)."""
        other_type = other
        if not isinstance(other_type, VectorType):
            return False
        return other_type.shape == self.shape and (self.dtype is None or other_type.dtype in (None, self.dtype))

    def field(self, shape=None, name: str = "", needs_grad: bool = False, needs_dual: bool = False, offset=None,
              **unused):
        self._refuse_unpacked("create a field of")
        f = Field(self.dtype or f32, shape, name, elem_shape=self.shape, needs_grad=needs_grad,
                  needs_dual=needs_dual, offset=offset)
        tensor_layout.tag_order(f, unused.get("order"))
        lay_out_by_order(f)
        return f

    def ndarray(self, shape, needs_grad: bool = False, **unused):
        self._refuse_unpacked("create an ndarray of")
        return Ndarray(self.dtype or f32, shape, elem_shape=self.shape, needs_grad=needs_grad)


def _no_quant(dtype, what: str):
    """Vectors and matrices of quantized types are refused in one line (they would otherwise be
    silently full-width)."""
    if isinstance(dtype, QUANT_TYPES):
        raise refuse_use(f"{what} of a quantized type ({dtype!r})",
                         "make one scalar quantized field per component (qd.field(dtype=qtype))")


def _is_quant(dtype) -> bool:
    return isinstance(dtype, QUANT_TYPES)


def _quant_field(q, elem_shape: tuple, shape, name: str, offset) -> Field:
    """`qd.Vector.field(2, dtype=qtype)`: a field of vectors of a quantized type, each component
    stored encoded (quant.py); kernels and Python decode every component."""
    f = Field(q.raw, shape, name, elem_shape=elem_shape, offset=offset)
    f.quant = q
    return f


def vector(n: int | None = None, dtype=None, unpacked: bool = False) -> VectorType:
    """`qd.types.vector(n, dtype)`; bare `qd.types.vector()` is "any vector" in an ndarray annotation.
    `unpacked=True` (a @qd.dataclass member's annotation only) makes the member n scalar members
    `_r0.._r{n-1}`, reached in kernels as `obj.r[i]` with a compile-time `i` (struct_types.py)."""
    _no_quant(dtype, "a vector")
    dt = as_dtype(dtype) if dtype is not None else None
    return VectorType(None, None, dt, 1) if n is None else VectorType(int(n), None, dt, unpacked=bool(unpacked))


def matrix(n: int | None = None, m: int | None = None, dtype=None) -> VectorType:
    """`qd.types.matrix(n, m, dtype)`; bare `qd.types.matrix()` is "any matrix" in an ndarray annotation."""
    _no_quant(dtype, "a matrix")
    dt = as_dtype(dtype) if dtype is not None else None
    if n is None and m is None:
        return VectorType(None, None, dt, 2)
    if n is None or m is None:
        raise TypeError(f"qd.types.matrix(n, m): give both sizes (or neither, for an annotation), got n={n}, m={m}")
    return VectorType(int(n), int(m), dt, 2)


def _dt(dt):
    return (as_dtype(dt) or f32).numpy


def _host_values(values, dt):
    """A Python-scope `qd.Vector(...)` / `qd.Matrix(...)`: of `dt` when given; else of the values' own
    kind, as Quadrants keeps them (integers stay integers: `~qd.Vector([2, 3])` works; floats are f64)."""
    if dt is not None:
        return np.array(values, dtype=_dt(dt))
    a = np.array(values)
    return a if a.dtype.kind in "biuf" else np.array(values, dtype=_dt(None))


def _check_ndim(ndim, want: int, what: str) -> None:
    if ndim is not None and ndim != want:
        raise refuse_use(f"{what}(ndim={ndim!r})", f"leave ndim out (only {want} is taken here)")


class Vector:
    """`qd.Vector([x, y, z])` in kernels and in Python (a `HostMatrix` there, with Quadrants' methods);
    `qd.Vector.field(n, dtype, shape)` and `.ndarray(...)` allocate arrays of vectors."""

    def __new__(cls, arr, dt=None, **kwargs):
        return H.host(_host_values(arr, dt))

    @staticmethod
    def field(n, dtype, shape=None, order=None, name: str = "", offset=None, needs_grad: bool = False,
              needs_dual: bool = False, layout=None, ndim=None, **unused):
        """Quadrants' Vector.field(n, dtype, *args, **kwargs) passes its arguments on to Matrix.field(n, 1,
        dtype, ...): the same parameters in the same order here."""
        _check_ndim(ndim, 1, "qd.Vector.field")
        if _is_quant(dtype):
            return _quant_field(dtype, (int(n),), shape, name, offset)
        return vector(n, dtype).field(shape, name, needs_grad=needs_grad, needs_dual=needs_dual, offset=offset,
                                      order=order)

    @staticmethod
    def ndarray(n, dtype, shape, needs_grad: bool = False, **unused):
        return vector(n, dtype).ndarray(shape, needs_grad=needs_grad)

    @staticmethod
    def zero(dt, n, m=None):
        return H.host(np.zeros(n if m is None else (n, m), _dt(dt)))

    @staticmethod
    def one(dt, n, m=None):
        return H.host(np.ones(n if m is None else (n, m), _dt(dt)))

    @staticmethod
    def unit(n, i, dt=None):
        v = np.zeros(n, _dt(dt))
        v[i] = 1
        return H.host(v)


class Matrix:
    """`qd.Matrix([[a, b], [c, d]])` in kernels and in Python; `qd.Matrix.field(n, m, dtype, shape)` outside."""

    def __new__(cls, arr, dt=None, **unused):
        return H.host(_host_values(arr, dt))

    @staticmethod
    def field(n, m, dtype, shape=None, order=None, name: str = "", offset=None, needs_grad: bool = False,
              needs_dual: bool = False, layout=None, ndim=None, **unused):
        """Quadrants' parameters in their order; `layout` (AOS/SOA) changes no value here (each component is
        stored apart either way)."""
        _check_ndim(ndim, 2, "qd.Matrix.field")
        if _is_quant(dtype):
            return _quant_field(dtype, (int(n), int(m)), shape, name, offset)
        return matrix(n, m, dtype).field(shape, name, needs_grad=needs_grad, needs_dual=needs_dual,
                                         offset=offset, order=order)

    @staticmethod
    def ndarray(n, m, dtype, shape, needs_grad: bool = False, **unused):
        return matrix(n, m, dtype).ndarray(shape, needs_grad=needs_grad)

    @staticmethod
    def identity(dt, n):
        return H.host(np.eye(n, dtype=_dt(dt)))

    @staticmethod
    def zero(dt, n, m=None):
        return H.host(np.zeros((n, m or n), _dt(dt)))

    @staticmethod
    def one(dt, n, m=None):
        return H.host(np.ones((n, m or n), _dt(dt)))

    @staticmethod
    def unit(n, i, dt=None):
        return Vector.unit(n, i, dt)

    @staticmethod
    def diag(dim, val):
        """`qd.Matrix.diag(3, x)`: x on the diagonal, zeros elsewhere (the dtype is x's)."""
        dt = np.float32 if isinstance(val, float) else np.int32 if isinstance(val, int) else np.asarray(val).dtype
        return H.host(np.eye(dim, dtype=dt) * np.asarray(val, dt))

    @staticmethod
    def rows(rows):
        """`qd.Matrix.rows([v0, v1])`: a matrix whose rows are the given vectors (or lists)."""
        return H.host(np.array([np.asarray(r) for r in rows]))

    @staticmethod
    def cols(cols):
        """`qd.Matrix.cols([v0, v1])`: a matrix whose columns are the given vectors (or lists)."""
        return H.host(np.array([np.asarray(c) for c in cols]).T.copy())


_fn: Any
for _name, _fn in H.METHODS.items():  # `qd.Vector.normalized(v, eps)`, `qd.Matrix.inverse(m)`
    setattr(Vector, _name, staticmethod(_fn))
    setattr(Matrix, _name, staticmethod(_fn))
for _name in ("identity", "diag", "rows", "cols"):
    setattr(Vector, _name, getattr(Matrix, _name))
class _ByRank:
    """`v.field(...)` of a Python-scope vector is Quadrants' Vector.field (n, dtype, ...), `m.field(...)`
    of a matrix Matrix.field (n, m, dtype, ...): a vector is an instance of Vector there."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, obj, cls=None):
        return getattr(Vector if obj is not None and obj.ndim == 1 else Matrix, self.name)


for _name in ("field", "ndarray", "tensor", "identity", "zero", "one", "unit", "diag", "rows", "cols"):
    setattr(H.HostMatrix, _name, _ByRank(_name))


vec2, vec3, vec4 = vector(2, f32), vector(3, f32), vector(4, f32)
ivec2, ivec3, ivec4 = vector(2, i32), vector(3, i32), vector(4, i32)
uvec2, uvec3, uvec4 = vector(2, u32), vector(3, u32), vector(4, u32)
mat2, mat3, mat4 = matrix(2, 2, f32), matrix(3, 3, f32), matrix(4, 4, f32)

ELEMENT_TYPE[0] = lambda shape, dt: vector(shape[0], dt) if len(shape) == 1 else matrix(shape[0], shape[1], dt)
