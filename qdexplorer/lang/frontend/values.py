"""The values the frontend passes around: compile-time Python values (`Py`) and typed IR.

Python literals stay "weak" until they meet a typed operand (Quadrants' rule: `x * 2.0` keeps
x's float type), so the frontend carries compile-time values as `Py` until it must commit; the
helpers here are the commit and conversion rules every lowering module shares.
"""
from __future__ import annotations

import ast
import dataclasses
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ... import ir
from ..calls import runtime_api
from ..func import Func
from ..intrinsics import GroupedIndex
from ..host.host_matrix import HostMatrix
from ...ir.dtypes import DType, f32, i32, i64, u1


@dataclass
class Py:
    """A compile-time Python value (literal, global constant, module, function)."""
    value: object


@dataclass
class ShapeTuple:
    """`x.shape` of an ndarray or field inside a kernel (its element axes are not part of it)."""
    array: ir.ArrayArg
    elem_ndim: int = 0

    @property
    def ndim(self) -> int:
        return self.array.ndim - self.elem_ndim


@dataclass
class Vec:
    """A small vector or matrix inside a kernel, lowered to one scalar expression per component
    (Quadrants' `qd.Vector`/`qd.Matrix`, and the index vector of `qd.grouped`). `shape` is (n,) or (n, m)."""
    items: list
    shape: tuple = ()

    def __post_init__(self):
        if not self.shape:
            self.shape = (len(self.items),)


@dataclass
class Seq:
    """A Python list or tuple of kernel values bound to a name (`w = [a, b, c]`, MPM's weights): its
    length is fixed at compile time, so compile-time indices pick items (`w[i]` with `i` a
    `qd.static` loop variable); each item is a local (or a vector of locals) of its own."""
    items: list


@dataclass
class StructArr:
    """A struct field inside a kernel: one array per member (`members`: name -> ArrayArg, or a
    StructArr for a nested struct member)."""
    stype: object
    members: dict


@dataclass
class StructVal:
    """A struct value inside a kernel: one value per member (a scalar, a `Vec`, or a nested
    StructVal). `cells` says where an element of a struct field stores each member
    (name -> (array, indices)); a local struct (None) keeps its members in locals."""
    stype: object
    members: dict
    cells: dict | None = None


@dataclass
class UnpackedRef:
    """`obj.r` of a struct whose `r` is declared `qd.types.vector(n, dt, unpacked=True)`: only
    indexable, with a compile-time index, as `obj._r{i}` (Quadrants' rule)."""
    struct: StructVal
    group: str
    count: int


@dataclass
class BufView:
    """A `qd.BufferView` inside a kernel: elements [offset, offset + size) of a 1-D array. `offset`
    and `size` are i32 expressions (a kernel argument's `v__offset`/`v__size`, or computed)."""
    array: ir.ArrayArg
    offset: ir.Expr
    size: ir.Expr


@dataclass
class ViewMethod:
    """`v.subview` before it is called."""
    view: BufView
    name: str


class KDict:
    """A dict built in a kernel (`{"a": x, "b": y}`, `{k: v for ...}`): compile-time keys (a
    kernel value as a key is that value, by identity, as Quadrants' Expr keys are) to values held
    in locals. `d[k]` takes a compile-time key; `keys()`, `values()`, `items()` and `len(d)` work."""

    def __init__(self, entries: dict):
        self.entries = entries

    def keys(self) -> list:
        return [py_value(k) if not isinstance(k, DictKey) else k.value for k in self.entries]

    def values(self) -> list:
        return list(self.entries.values())

    def items(self) -> list:
        return [[k, v] for k, v in zip(self.keys(), self.values())]

    def __len__(self) -> int:
        return len(self.entries)


class DictKey:
    """A kernel value used as a dict key: equal only to itself."""

    def __init__(self, value):
        self.value = value


@dataclass
class BoundMethod:
    """`s.area` of a `@qd.dataclass` value before it is called: the method and its `self`."""
    func: Func
    self_value: StructVal


class VecMethod:
    """`v.dot` before it is called."""

    def __init__(self, vec: Vec, name: str):
        self.vec, self.name = vec, name


SMALL = 64  # at most this many elements make a NumPy global a kernel vector (qd.Vector constants)

BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
          ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
          ast.RShift: ">>", ast.MatMult: "@"}
CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
ATOMIC_OPS = {"atomic_add": "add", "atomic_sub": "sub", "atomic_min": "min", "atomic_max": "max",
              "atomic_and": "and", "atomic_or": "or", "atomic_xor": "xor", "atomic_mul": "mul",
              "atomic_exchange": "xchg"}
# math of f16 operands whose result Quadrants 1.3.3 leaves an f32 (difftest seed 206496); the others round to f16
F16_MATH_GIVES_F32 = {"atan2"}
FLOAT_ONLY_MATH = {"sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log",
                   "tanh", "pow"}


def py_value(v) -> "Py | Vec | ir.Expr | StructVal | Seq":
    """A compile-time Python value; NumPy scalars and 0-d arrays become Python numbers, as in Quadrants,
    and a compile-time `qd.grouped` index an index vector."""
    if isinstance(v, (Vec, ir.Expr, StructVal, Seq)):  # a kernel value a Python object holds (`ray.origin`)
        return v
    if isinstance(v, np.generic) or (isinstance(v, np.ndarray) and v.ndim == 0):
        return Py(v.item())
    if isinstance(v, GroupedIndex):
        return Vec([Py(int(k)) for k in v])
    if isinstance(v, np.ndarray) and v.ndim in (1, 2) and 0 < v.size <= SMALL and v.dtype.kind in "fiu":
        if v.dtype.kind == "f" and isinstance(v, HostMatrix):
            # a global qd.Vector / qd.Matrix of floats is a vector of default_fp constants in a kernel, as in
            # Quadrants (a `dt=qd.f64` given too): `h * g` (h a Python float) multiplies in f32, each operand
            # rounded first (0.003 * -1.2 is -0.0036000002), not in Python's f64 then rounded
            return Vec([literal(x.item()) for x in v.ravel()], v.shape)
        return Vec([Py(x.item()) for x in v.ravel()], v.shape)  # a global qd.Vector([...]) constant
    return Py(v)


def is_number(v) -> bool:
    return isinstance(v, Py) and isinstance(v.value, (int, float, bool))


def default_types() -> tuple[DType, DType]:
    """(default_ip, default_fp): the types Python numbers get in a kernel, i32 and f32 unless
    `qd.init(default_ip=..., default_fp=...)` chose others."""
    return runtime_api.default_types()


def represent(value, dt: DType):
    """The value a constant of type `dt` holds: rounded to its float width, an integer wrapped to its
    width (`qd.cast(300, qd.u8)` is 44) and a float truncated toward zero first."""
    if dt.is_float:
        wide = np.array(float(value), dtype=np.float64)
        if dt.bits == 16:  # Quadrants rounds to f16 through f32 (twice), in kernels and in its constants
            with np.errstate(over="ignore"):
                wide = wide.astype(np.float32)
        with np.errstate(over="ignore"):  # beyond the type's range is inf, as in Quadrants
            r = float(wide.astype(dt.numpy))
        if dt.bits >= 32 and r != 0.0 and abs(r) < np.finfo(dt.numpy).tiny:
            return math.copysign(0.0, r)  # Quadrants flushes subnormal constants to zero (test_fp_flush_to_zero)
        return r
    if dt.kind == "b":
        return int(bool(value))
    v, m = int(value), 1 << dt.bits
    v %= m
    return v - m if dt.kind == "i" and v >= m // 2 else v


def literal(value, like: DType | None = None, exact: bool = False) -> ir.Const:
    """Commit a Python number to a typed constant, adopting `like`'s type where it fits. A float is
    default_fp first, as in Quadrants: `x_f64[i] = 0.1` stores 0.1 rounded to f32 unless
    qd.init(default_fp=qd.f64); `exact` (the `qd.f64(0.1)` constructor) keeps every digit."""
    ip, fp = default_types()
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        dt = like if like is not None and like.kind in "iuf" else ip
        if dt.kind == "i" and dt.bits == 32 and not (-2**31 <= value < 2**31):
            dt = i64
        return ir.Const(represent(value, dt), dt)
    dt = like if like is not None and like.is_float else fp
    if not exact and dt.bits > fp.bits:
        value = represent(value, fp)
    return ir.Const(represent(value, dt), dt)


def operand_literal(value, other: DType) -> ir.Const:
    """A Python number met by a typed operand, as Quadrants types it: as default_ip / default_fp, which
    the operation then promotes. So `u8 + 1` is an i32 (256 for 255 + 1), `f16 * 2.0` an f32, and
    `f64 * 0.1` multiplies by 0.1 rounded to f32 (Quadrants' default_fp). An integer too wide for
    default_ip takes a 64-bit operand's type (Quadrants refuses it; the value is the same)."""
    ip, fp = default_types()
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float):
        return literal(value, other if other.is_float and other.bits > fp.bits else fp)
    if other.is_float or (other.kind in "iu" and other.bits >= ip.bits):
        return literal(value, other)
    return literal(value, None)


def cast(e: ir.Expr, dt: DType) -> ir.Expr:
    if e.dtype == dt:
        return e
    if isinstance(e, ir.Const) and dt.kind != "b":
        v = represent(e.value, e.dtype)
        if dt.is_int and e.dtype.is_float and not np.isfinite(v):
            return ir.Cast(e, dt)
        return ir.Const(represent(v, dt), dt)
    return ir.Cast(e, dt)


def truthy(e: ir.Expr) -> ir.Expr:
    if e.dtype == u1:
        return e
    zero = ir.Const(0.0 if e.dtype.is_float else 0, e.dtype)
    return ir.Compare("!=", e, zero, u1)


def fits(value, dt: DType) -> bool:
    if isinstance(value, float):
        return dt.is_float
    return dt.kind in "iuf"


def fold(op, a, b):
    try:
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
                "//": lambda: a // b, "%": lambda: a % b, "**": lambda: a ** b, "&": lambda: a & b,
                "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b, ">>": lambda: a >> b}[op]()
    except ZeroDivisionError:
        raise ZeroDivisionError("division by zero in a compile-time constant") from None


def tensor_type_name(items: list, shape: tuple) -> str:
    """Quadrants' name of a vector/matrix value in its type errors: `[Tensor (3) i32]`."""
    dt: DType | None = None
    for x in items:
        d: DType | None
        if is_number(x):
            ip, fp = default_types()
            d = fp if isinstance(x.value, float) else ip
        else:
            d = getattr(x, "dtype", None)
        if d is not None and (dt is None or (d.is_float and not dt.is_float)):
            dt = d
    name = dt.name if dt is not None else "?"
    return f"[Tensor ({', '.join(map(str, shape))}) {name}]"


_GROUPS = itertools.count(1)


def matrix_init(items: list) -> list:
    """`items`, the elements of one vector Quadrants builds from scalars (a MatrixInitStmt), with each
    read of a float local that fills several of them tagged (ir.LocalRef.bcast): reverse mode passes
    that statement's adjoint to its elements in component order, so the adjoint of such a local
    (`qd.Vector([s, s])`, `s * v`) sums them first to last (ours, which lowers the vector component by
    component, would sum them last to first without the tag)."""
    seen: dict = {}
    for k, x in enumerate(items):
        if isinstance(x, ir.LocalRef) and x.dtype.is_float:
            seen.setdefault(x.local, []).append(k)
    if all(len(ks) < 2 for ks in seen.values()):
        return items
    out = list(items)
    for ks in seen.values():
        if len(ks) > 1:
            g = next(_GROUPS)
            for k in ks:
                out[k] = dataclasses.replace(items[k], bcast=(g, k, ks[0]))
    return out


def broadcast(x, n: int) -> list:
    """A scalar operand of a vector operation, once per component, as Quadrants' frontend makes it: a
    vector [x, x, ...] whose reads of a variable are one statement (tagged: `matrix_init`), and whose
    expression is one copy per component (distinct nodes: reverse mode differentiates each copy on
    its own, where one node would be one statement taking the sum of the components' adjoints)."""
    if isinstance(x, ir.Expr) and not isinstance(x, (ir.LocalRef, ir.Const)) and x.dtype.is_float \
            and not any(isinstance(y, ir.AtomicRMW) for y in ir.walk(x)):
        return [x] + [_copy_ops(x, {}) for _ in range(n - 1)]
    return matrix_init([x] * n)


def _copy_ops(e, memo: dict):
    """`e` with its operation nodes new objects (the same structure; leaves shared)."""
    if not isinstance(e, ir.Expr) or isinstance(e, (ir.LocalRef, ir.Const, ir.ScalarArg, ir.Shape, ir.SimtIndex)):
        return e
    hit = memo.get(id(e))
    if hit is not None:
        return hit
    out = ir.map_operands(e, lambda v: _copy_ops(v, memo), new=True)  # a new node even without changes
    memo[id(e)] = out
    return out
