"""Scalar dtypes and the ndarray argument type of the kernel language.

Dtypes are plain frozen dataclasses so Task IR stays picklable and hashable: the compile pool
and the device worker receive it across process boundaries.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    kind: str  # 'f' float, 'i' signed int, 'u' unsigned int, 'b' boolean (comparison results)
    bits: int

    def __repr__(self) -> str:
        return f"qd.{self.name}"

    def to_string(self) -> str:
        """Quadrants' `qd.f32.to_string()`: the short name."""
        return self.name

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def numpy(self) -> np.dtype:
        return np.dtype(_NUMPY[self.name])

    @property
    def nbytes(self) -> int:
        return max(1, self.bits // 8)


f32 = DType("f32", "f", 32)
f64 = DType("f64", "f", 64)
i32 = DType("i32", "i", 32)
i64 = DType("i64", "i", 64)
u32 = DType("u32", "u", 32)
u1 = DType("u1", "b", 1)
f16 = DType("f16", "f", 16)
i8 = DType("i8", "i", 8)
i16 = DType("i16", "i", 16)
u8 = DType("u8", "u", 8)
u16 = DType("u16", "u", 16)
u64 = DType("u64", "u", 64)
float32, float64, int32, int64, uint32 = f32, f64, i32, i64, u32
float16, int8, int16, uint8, uint16, uint64 = f16, i8, i16, u8, u16, u64

_NUMPY = {"f32": "float32", "f64": "float64", "i32": "int32", "i64": "int64", "u32": "uint32", "u1": "bool",
          "f16": "float16", "i8": "int8", "i16": "int16", "u8": "uint8", "u16": "uint16", "u64": "uint64"}
ALL = {d.name: d for d in (f32, f64, i32, i64, u32, f16, i8, i16, u8, u16, u64)}
_FROM_NUMPY = {np.dtype(_NUMPY[n]): d for n, d in ALL.items()}
_FROM_NUMPY[np.dtype(np.bool_)] = u1  # a u1 field's storage, or a NumPy bool array, passed to a kernel


def from_numpy(dt) -> DType:
    try:
        return _FROM_NUMPY[np.dtype(dt)]
    except KeyError:
        raise TypeError(f"numpy dtype {np.dtype(dt)} has no kernel-language equivalent "
                        f"(supported: {', '.join(ALL)})") from None


def _no_init_defaults() -> tuple:
    return None, None


# qd.init's (default_ip, default_fp); runtime_api installs its reader at import (it imports this module,
# so this module must not import it back)
init_defaults = _no_init_defaults


def as_dtype(x) -> DType | None:
    """Map an annotation (`qd.f32`, `float`, `int`) to a DType; None if it is not a scalar type. Python's
    `float` and `int` are qd.init's default_fp / default_ip (f32 / i32 unless changed), as in Quadrants."""
    if isinstance(x, DType):
        return x
    if x is float or x is int:
        ip, fp = init_defaults()
        return (fp or f32) if x is float else (ip or i32)
    if x is bool:
        return i32
    return None


def int_range(dt: DType) -> tuple[int, int]:
    """The values an integer dtype holds: every scalar argument is checked against it."""
    if dt.kind == "u" or dt.bits == 1:  # u1 holds 0 and 1
        return 0, (1 << dt.bits) - 1
    return -(1 << (dt.bits - 1)), (1 << (dt.bits - 1)) - 1


def loop_index_type(bounds) -> DType:
    """The type of a parallel loop's index: i32 as in Quadrants, i64 where a bound is 64-bit, so a
    bound such as `range(2**32, 2**32 + 10)` keeps its value instead of wrapping to `range(0, 10)`."""
    return i64 if any(e.dtype.is_int and e.dtype.bits > 32 for e in bounds) else i32


def promote(a: DType, b: DType) -> DType:
    """Binary-op result type, following Quadrants: float wins over int, wider wins, unsigned wins ties."""
    if a == b:
        return i32 if a.kind == "b" else a  # True + True is 2, as in Python
    if a.kind == "b":
        return b if b.kind != "b" else i32
    if b.kind == "b":
        return a
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits >= b.bits else b
        return a if a.is_float else b
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    return a if a.kind == "u" else b  # as in C and Quadrants 1.3.3: i32 + u32 is a u32


@dataclass(frozen=True)
class NdarrayType:
    """`qd.types.ndarray(dtype=qd.f32, ndim=1)`: a kernel argument bound to a NumPy array."""
    dtype: DType | None = None
    ndim: int | None = None
    elem: tuple = ()  # element shape of an array of vectors/matrices: trailing axes of the NumPy array
    elem_rank: int | None = None  # bare qd.types.vector() (1) / matrix() (2): any such element, from the call
    needs_grad: bool | None = None  # `ndarray(needs_grad=False)`: k.grad leaves this argument's .grad alone
    boundary: str = "unsafe"  # `ndarray(boundary="clamp")`: every index clamped into the array's extent

    def __repr__(self) -> str:
        el = f", elem={self.elem}" if self.elem else ""
        el += f", elem={'vector' if self.elem_rank == 1 else 'matrix'}" if self.elem_rank else ""
        return f"ndarray(dtype={self.dtype!r}, ndim={self.ndim}{el})"
