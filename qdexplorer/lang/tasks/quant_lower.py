"""Quantized fields inside kernels: after a task is lowered, every load of a quantized field
decodes and every store encodes (quant.py says how), so the rest of the frontend sees the compute
type (`ir.ArrayArg(name, compute)`) and the task's arrays keep the raw integer type.

Atomic adds and subtractions of quant ints and fixed-point numbers stay atomic (on the digits, as
Quadrants' `atomic_add_partial_bits`); other atomics on quantized fields, and every atomic on a
quantized float, become a load, the operation and a store, as Quadrants' "atomic demotion" does.
"""
from __future__ import annotations

import dataclasses

from ... import ir
from ...ir.errors import QdCompileError
from ..frontend.values import cast
from ..quant import QuantFixed, QuantFloat, QuantInt
from ...ir.dtypes import DType, f32, i32, u1, u32

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


def decode_shared(q: QuantFloat, raw: ir.Expr) -> ir.Expr:
    """A member of a shared-exponent group (Quadrants' `reconstruct_quant_float`, shared_exponent):
    its digits carry the leading 1, whose position adjusts the exponent."""
    d = q.digit_bits
    e = _b("&", _b(">>", raw, _c(q.frac, u32), u32), _c((1 << q.exp) - 1, u32), u32)
    d0 = _b("&", raw, _c((1 << q.frac) - 1, u32), u32)
    digits: ir.Expr = d0
    off: ir.Expr = _c(q.exp_offset, i32)
    if q.exp < 8:
        off = ir.Select(ir.Compare("!=", e, _c(0, u32), u1), off, _c(0, i32), i32)
    sign: ir.Expr = _c(0, u32)
    if q.signed:
        bit = _b("&", digits, _c(1 << d, u32), u32)
        digits = _b("<<", _b("^", digits, bit, u32), _c(1, u32), u32)
        sign = _b("<<", bit, _c(31 - d, u32), u32)
    extra = _b("-", _c(31 - d, i32), ir.MathCall("clz", (digits,), i32), i32)
    off = _b("+", _b("+", off, extra, i32), _c(0 if q.signed else 1, i32), i32)
    shifted = _b("<<", digits, cast(_b("-", _c(23 - d, i32), extra, i32), u32), u32)
    f = _b("|", _b("<<", cast(_b("+", cast(e, i32), off, i32), u32), _c(23, u32), u32),
           _b("&", shifted, _c((1 << 23) - 1, u32), u32), u32)
    zero = ir.BinOp("or", ir.Compare("==", e, _c(0, u32), u1), ir.Compare("==", d0, _c(0, u32), u1), u1)
    f = _b("|", ir.Select(zero, _c(0, u32), f, u32), sign, u32)
    return ir.UnOp("bitcast", f, f32)


def encode_shared(qs: list, values: list) -> tuple[list, list]:
    """(statements, raw words) storing the f32 `values` (LocalRefs) of a shared-exponent group
    (Quadrants' `store_quant_floats_with_shared_exponents`)."""
    bits = [ir.UnOp("bitcast", v, u32) for v in values]
    exps = [_b("&", _b(">>", b, _c(23, u32), u32), _c(255, u32), u32) for b in bits]
    top_e: ir.Expr = exps[0]
    for x in exps[1:]:
        top_e = _b("max", top_e, x, u32)
    top = ir.Local("qshared_top", u32)
    first = qs[0]
    off = ir.Select(ir.Compare("!=", ir.LocalRef(top), _c(0, u32), u1), _c(first.exp_offset, i32), _c(0, i32), i32)
    stored = _b("&", cast(_b("max", _b("-", cast(ir.LocalRef(top), i32), off, i32), _c(0, i32), i32), u32),
                _c((1 << first.exp) - 1, u32), u32)
    out = []
    for q, b, e in zip(qs, bits, exps):
        d, rsb = q.digit_bits, 24 - q.digit_bits
        full = _b("|", _b("&", b, _c((1 << 23) - 1, u32), u32), _c(1 << 23, u32), u32)
        digits: ir.Expr = _b(">>", full, _b("min", _b("-", ir.LocalRef(top), e, u32), _c(31, u32), u32), u32)
        digits = _b(">>", _b("min", _b("+", digits, _c(1 << (rsb - 1), u32), u32), _c((1 << 24) - 1, u32), u32),
                    _c(rsb, u32), u32)
        if q.signed:
            digits = _b("|", digits, _b(">>", _b("&", b, _c(0x80000000, u32), u32), _c(31 - d, u32), u32), u32)
        out.append(_b("|", _b("<<", stored, _c(q.frac, u32), u32), _b("&", digits, _c((1 << q.frac) - 1, u32), u32),
                      u32))
    return [ir.Assign(top, top_e)], out


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

    def __init__(self, quants: dict, groups: dict | None = None):
        self.quants = quants
        self.groups = groups or {}  # array name -> the names of its shared-exponent group, in order

    def raw_array(self, arr) -> ir.ArrayArg:
        return ir.ArrayArg(arr.name, self.quants[arr.name].raw, arr.ndim, layout=arr.layout)

    def quantized(self, arr) -> bool:
        return isinstance(arr, ir.ArrayArg) and arr.name in self.quants

    def demoted(self, e) -> bool:
        """An atomic on a quantized field that is done as load, operation, store."""
        return isinstance(e, ir.AtomicRMW) and self.quantized(e.array) and (
            isinstance(self.quants[e.array.name], QuantFloat) or e.op not in ("add", "sub"))

    def store_group(self, s: ir.Store, also: tuple = ()) -> list:
        """A store to a member of a shared-exponent group (with `also`: the stores to other members
        at the same index right after it, fused into one as Quadrants fuses them): the other members
        are read back, the group's exponent recomputed, and every member stored again."""
        idx = self.node(s.indices)
        names = self.groups[s.array.name]
        given = {t.array.name: t.value for t in (s,) + tuple(also)}
        out: list = []
        vals = []
        layout = s.array.layout if isinstance(s.array, ir.ArrayArg) else ()  # a group's members share a container
        for k, n in enumerate(names):
            loc = ir.Local(f"qshared_{k}", f32)
            q = self.quants[n]
            raw = ir.ArrayArg(n, q.raw, s.array.ndim, layout=layout)
            v = cast(self.expr(given[n]), f32) if n in given else decode_shared(q, ir.Load(raw, idx, s.where))
            out.append(ir.Assign(loc, v))
            vals.append(ir.LocalRef(loc))
        pre, words = encode_shared([self.quants[n] for n in names], vals)
        out += pre
        out += [ir.Store(ir.ArrayArg(n, self.quants[n].raw, s.array.ndim, layout=layout), idx, w, s.where)
                for n, w in zip(names, words)]
        return out

    # -- expressions
    def expr(self, e):
        if isinstance(e, ir.Load) and self.quantized(e.array):
            q = self.quants[e.array.name]
            raw = ir.Load(self.raw_array(e.array), self.node(e.indices), e.where)
            return decode_shared(q, raw) if e.array.name in self.groups else decode(q, raw)
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

    def fusable(self, first: ir.Store, s) -> bool:
        return (isinstance(s, ir.Store) and isinstance(s.array, ir.ArrayArg) and s.array.name != first.array.name
                and s.array.name in self.groups.get(first.array.name, ()) and s.indices == first.indices)

    def node(self, v):
        if isinstance(v, list):
            out: list = []
            k = 0
            while k < len(v):
                x = v[k]
                if isinstance(x, ir.Store) and self.quantized(x.array) and x.array.name in self.groups:
                    run: list = []  # stores to the other members at the same index, right after it
                    while k + 1 + len(run) < len(v) and self.fusable(x, v[k + 1 + len(run)]) and \
                            v[k + 1 + len(run)].array.name not in {t.array.name for t in run}:
                        run.append(v[k + 1 + len(run)])
                    out.extend(self.store_group(x, tuple(run)))
                    k += 1 + len(run)
                    continue
                r = self.node(x)
                out.extend(r) if isinstance(x, ir.Stmt) and isinstance(r, list) else out.append(r)
                k += 1
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
        if isinstance(s, ir.Store) and self.quantized(s.array) and s.array.name in self.groups:
            return self.store_group(s)
        if isinstance(s, ir.Store) and self.quantized(s.array):
            q = self.quants[s.array.name]
            return ir.Store(self.raw_array(s.array), self.node(s.indices), encode(q, self.expr(s.value)), s.where)
        value = getattr(s, "value", None)
        if isinstance(s, (ir.ExprStmt, ir.Assign)) and self.demoted(value):
            a = value
            assert a is not None
            q = self.quants[a.array.name]
            op = _OPS.get(a.op)
            if op is None:
                raise QdCompileError(f"{a.where or 'a kernel'}: atomic {a.op} on a quantized field is not supported "
                                     f"by qdexplorer.lang")
            old: ir.Expr = ir.Load(a.array, a.indices, a.where)  # rewritten below, with the new value
            out: list = []
            if isinstance(s, ir.Assign):  # `old = qd.atomic_add(x[i], v)`: the value before
                out.append(ir.Assign(s.local, cast(self.expr(old), s.local.dtype)))
                old = ir.LocalRef(s.local)
            dt = q.compute
            new = _b(op, cast(old, dt), cast(a.value, dt), dt)
            if a.array.name in self.groups:
                return out + self.store_group(ir.Store(a.array, a.indices, new, a.where))
            out.append(ir.Store(self.raw_array(a.array), self.node(a.indices), encode(q, self.expr(new)), a.where))
            return out
        return self.generic(s)


def rewrite_task(task: ir.Task, quants: dict, groups: dict | None = None) -> None:
    """Encode and decode the quantized fields `quants` (array name -> type) in `task`, in place;
    `groups`: array name -> the names of its shared-exponent group."""
    if not quants:
        return
    r = QuantRewriter(quants, groups)
    task.body = r.node(task.body)
