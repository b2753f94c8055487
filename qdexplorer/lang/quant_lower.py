"""Quantized fields inside kernels: after a task is lowered, every load of a quantized field
decodes and every store encodes (quant.py says how), so the rest of the frontend sees the compute
type (`ir.ArrayArg(name, compute)`) and the task's arrays keep the raw integer type.

Atomic adds and subtractions of quant ints and fixed-point numbers stay atomic (on the digits, as
Quadrants' `atomic_add_partial_bits`); other atomics on quantized fields, and every atomic on a
quantized float, become a load, the operation and a store, as Quadrants' "atomic demotion" does.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .errors import QdCompileError
from .frontend.values import cast
from .quant import QuantFixed, QuantFloat, QuantInt
from .types import DType, f32, i32, u1, u32

_OPS = {"add": "+", "sub": "-", "min": "min", "max": "max", "and": "&", "or": "|", "xor": "^"}


def _c(v, dt: DType) -> ir.Const:
    return ir.Const(v, dt)


def _b(op: str, a, b, dt: DType) -> ir.BinOp:
    return ir.BinOp(op, a, b, dt)


def _wrap(raw: ir.Expr, bits: int, signed: bool) -> ir.Expr:
    """The low `bits` bits of `raw`, sign-extended when signed (a bit-struct member's load)."""
    w = raw.dtype.bits
    if bits >= w:
        return raw
    if not signed or raw.dtype.kind == "u":
        return _b("&", raw, _c((1 << bits) - 1, raw.dtype), raw.dtype)
    s = _c(w - bits, raw.dtype)
    return _b(">>", _b("<<", raw, s, raw.dtype), s, raw.dtype)


def decode(q, raw: ir.Expr) -> ir.Expr:
    if isinstance(q, QuantInt):
        return _wrap(raw, q.bits, q.signed)
    if isinstance(q, QuantFixed):
        return _b("*", cast(_wrap(raw, q.bits, q.signed), f32), _c(q.scale, f32), f32)
    digits = _b("&", raw, _c((1 << q.frac) - 1, u32), u32)
    e = _b("&", _b(">>", raw, _c(q.frac, u32), u32), _c((1 << q.exp) - 1, u32), u32)
    off: ir.Expr = _c(q.exp_offset, u32)
    if q.exp < 8:
        off = ir.Select(ir.Compare("!=", e, _c(0, u32), u1), off, _c(0, u32), u32)
    shifted = _b("<<", digits, _c(23 - q.digit_bits, u32), u32)
    bits = _b("|", _b("<<", _b("+", e, off, u32), _c(23, u32), u32),
              _b("&", shifted, _c((1 << 23) - 1, u32), u32), u32)
    if q.signed:
        bits = _b("|", bits, _b("<<", _b("&", shifted, _c(1 << 23, u32), u32), _c(8, u32), u32), u32)
    return ir.UnOp("bitcast", bits, f32)


def _to_fixed(q: QuantFixed, v: ir.Expr) -> ir.Expr:
    """int(v / scale + copysign(0.5, v)), in f32 as Quadrants' `to_quant_fixed`."""
    scaled = _b("*", cast(v, f32), _c(1.0 / q.scale, f32), f32)
    sign = _b("&", ir.UnOp("bitcast", scaled, u32), _c(0x80000000, u32), u32)
    delta = ir.UnOp("bitcast", _b("|", sign, _c(0x3F000000, u32), u32), f32)
    return cast(_b("+", scaled, delta, f32), q.raw)


def encode(q, v: ir.Expr) -> ir.Expr:
    if isinstance(q, QuantInt):
        return cast(v, q.raw)
    if isinstance(q, QuantFixed):
        return _to_fixed(q, v)
    d = q.digit_bits
    b: ir.Expr = ir.UnOp("bitcast", cast(v, f32), u32)
    if d < 23:
        b = _b("+", b, _c(1 << (22 - d), u32), u32)
    e = _b("&", _b(">>", b, _c(23, u32), u32), _c(255, u32), u32)
    digits: ir.Expr = _b("&", _b(">>", b, _c(23 - d, u32), u32), _c((1 << d) - 1, u32), u32)
    if q.signed:
        digits = _b("|", digits, _b(">>", _b("&", b, _c(0x80000000, u32), u32), _c(31 - d, u32), u32), u32)
    ei = cast(e, i32)
    off = ir.Select(ir.Compare("!=", ei, _c(0, i32), u1), _c(q.exp_offset, i32), _c(0, i32), i32)
    e2 = _b("max", _b("-", ei, off, i32), _c(0, i32), i32)
    flushed = ir.Select(ir.Compare("!=", e2, _c(0, i32), u1), digits, _c(0, u32), u32)  # flush to zero
    kept = _b("&", flushed, _c((1 << q.frac) - 1, u32), u32)
    e2u = _b("&", cast(e2, u32), _c((1 << q.exp) - 1, u32), u32)
    return _b("|", _b("<<", e2u, _c(q.frac, u32), u32), kept, u32)


class QuantRewriter:
    """Rewrites one task body; `quants` maps an array name to its quantized type."""

    def __init__(self, quants: dict):
        self.quants = quants

    def raw_array(self, arr) -> ir.ArrayArg:
        return ir.ArrayArg(arr.name, self.quants[arr.name].raw, arr.ndim)

    def quantized(self, arr) -> bool:
        return isinstance(arr, ir.ArrayArg) and arr.name in self.quants

    def demoted(self, e) -> bool:
        """An atomic on a quantized field that is done as load, operation, store."""
        return isinstance(e, ir.AtomicRMW) and self.quantized(e.array) and (
            isinstance(self.quants[e.array.name], QuantFloat) or e.op not in ("add", "sub"))

    # -- expressions
    def expr(self, e):
        if isinstance(e, ir.Load) and self.quantized(e.array):
            q = self.quants[e.array.name]
            return decode(q, ir.Load(self.raw_array(e.array), self.node(e.indices), e.where))
        if isinstance(e, ir.AtomicRMW) and self.quantized(e.array):
            if self.demoted(e):
                raise QdCompileError(f"{e.where or 'a kernel'}: an atomic {e.op} on a quantized field inside a "
                                     f"larger expression is not supported by qdexplorer.lang; make it a statement "
                                     f"(x[i] += v, or old = qd.atomic_add(x[i], v))")
            q = self.quants[e.array.name]
            delta = encode(q, self.expr(e.value))
            new = dataclasses.replace(e, array=self.raw_array(e.array), indices=self.node(e.indices), value=delta)
            return decode(q, new)
        return self.generic(e)

    def generic(self, n):
        changes = {}
        for f in n.__dataclass_fields__:
            v = getattr(n, f)
            nv = self.node(v)
            if nv is not v:
                changes[f] = nv
        return dataclasses.replace(n, **changes) if changes else n

    def node(self, v):
        if isinstance(v, list):
            out: list = []
            for x in v:
                r = self.node(x)
                out.extend(r) if isinstance(x, ir.Stmt) and isinstance(r, list) else out.append(r)
            return out
        if isinstance(v, tuple):
            return tuple(self.node(x) for x in v)
        if isinstance(v, ir.Stmt):
            return self.stmt(v)
        if isinstance(v, ir.Expr):
            return self.expr(v)
        return v

    # -- statements
    def stmt(self, s):
        if isinstance(s, ir.Store) and self.quantized(s.array):
            q = self.quants[s.array.name]
            return ir.Store(self.raw_array(s.array), self.node(s.indices), encode(q, self.expr(s.value)), s.where)
        value = getattr(s, "value", None)
        if isinstance(s, (ir.ExprStmt, ir.Assign)) and self.demoted(value):
            a = value
            assert a is not None
            q = self.quants[a.array.name]
            idx = self.node(a.indices)
            old = decode(q, ir.Load(self.raw_array(a.array), idx, a.where))
            out: list = []
            if isinstance(s, ir.Assign):  # `old = qd.atomic_add(x[i], v)`: the value before
                out.append(ir.Assign(s.local, cast(old, s.local.dtype)))
                old = ir.LocalRef(s.local)
            op = _OPS.get(a.op)
            if op is None:
                raise QdCompileError(f"{a.where or 'a kernel'}: atomic {a.op} on a quantized field is not supported "
                                     f"by qdexplorer.lang")
            dt = q.compute
            new = _b(op, cast(old, dt), cast(self.expr(a.value), dt), dt)
            out.append(ir.Store(self.raw_array(a.array), idx, encode(q, new), a.where))
            return out
        return self.generic(s)


def rewrite_task(task: ir.Task, quants: dict) -> None:
    """Encode and decode the quantized fields `quants` (array name -> type) in `task`, in place."""
    if not quants:
        return
    r = QuantRewriter(quants)
    task.body = r.node(task.body)
