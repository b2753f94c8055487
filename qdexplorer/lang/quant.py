"""Quantized types (`qd.types.quant.int / fixed / float`) with Quadrants' encodings.

A quantized field keeps its *encoded* value in an ordinary integer array (the "raw" storage: the
digits of a quant int or fixed, the packed exponent and digits of a quant float), one element per
index: bit packing (`qd.BitpackedFields`, `quant_array`) only saves memory in Quadrants, so it is not
reproduced. Every store encodes and every load decodes, in kernels (`quant_lower.py` rewrites the
tasks) and from Python (`Field`), with the same arithmetic as Quadrants' LLVM code generator:
- int(bits, signed): stored at full width; a load keeps the low `bits` bits, sign-extended;
- fixed(bits, signed, scale): digits = int(v / scale ± 0.5) (f32 arithmetic), a load gives
  digits * scale; an atomic add adds digits, as Quadrants' does;
- float(exp, frac, signed): f32 rounded to `frac` digits (minus the sign bit), the exponent rebased
  to `exp` bits and flushed to zero below it, as `BitStructStoreStmt` stores it.
- shared exponents (`place(a, b, shared_exponent=True)`): every member stores the group's largest
  exponent and digits with their leading 1; a store re-encodes the whole group from the others'
  current values (stores to several members at one index, one after another, are fused into one, as
  Quadrants fuses them).
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass

import numpy as np

from ..ir.dtypes import DType, as_dtype, f32, i32, i64, u32, u64
from ..ir.errors import QdCompileError
from .calls.runtime_api import default_types


@dataclass(frozen=True)
class QuantInt:
    bits: builtins.int
    signed: bool
    compute: DType

    @property
    def raw(self) -> DType:
        return self.compute

    def __repr__(self) -> str:
        return f"qd.types.quant.int({self.bits}, {self.signed}, {self.compute!r})"


@dataclass(frozen=True)
class QuantFixed:
    bits: builtins.int
    signed: bool
    scale: builtins.float
    compute: DType = f32

    @property
    def raw(self) -> DType:
        return i32 if self.signed else u32

    def __repr__(self) -> str:
        return f"qd.types.quant.fixed(bits={self.bits}, signed={self.signed}, scale={self.scale!r})"


@dataclass(frozen=True)
class QuantFloat:
    exp: builtins.int
    frac: builtins.int
    signed: bool
    compute: DType = f32

    @property
    def raw(self) -> DType:
        return u32  # (exponent << frac) | digits

    @property
    def digit_bits(self) -> builtins.int:
        return self.frac - builtins.int(self.signed)

    @property
    def exp_offset(self) -> builtins.int:
        return 127 - (1 << (self.exp - 1)) + 1

    def __repr__(self) -> str:
        return f"qd.types.quant.float(exp={self.exp}, frac={self.frac}, signed={self.signed})"


QUANT_TYPES = (QuantInt, QuantFixed, QuantFloat)


def _default(kind: str) -> DType:
    ip, fp = default_types()
    if kind == "fp":
        return fp
    return ip if kind == "ip" else (u64 if ip == i64 else u32)


def int(bits, signed=True, compute=None) -> QuantInt:  # noqa: A001 - Quadrants' name
    """`qd.types.quant.int(bits, signed=True, compute=None)`: a `bits`-bit integer computed in
    `compute` (default_ip, or its unsigned twin)."""
    dt = as_dtype(compute) if compute is not None else _default("ip" if signed else "up")
    if dt is None or not dt.is_int or not 1 <= bits <= dt.bits:
        raise ValueError(f"qd.types.quant.int({bits}, ...): needs 1..{getattr(dt, 'bits', 64)} bits and an integer "
                         f"compute type, got compute={compute!r}")
    return QuantInt(builtins.int(bits), bool(signed), dt)


def fixed(bits, signed=True, max_value=1.0, compute=None, scale=None) -> QuantFixed:
    """`qd.types.quant.fixed(bits, signed=True, max_value=1.0, compute=None, scale=None)`: a fixed-point
    number; `scale` wins over `max_value` (scale = max_value / 2**(bits - 1), or / 2**bits unsigned)."""
    if not 1 <= bits <= 32:
        raise ValueError(f"qd.types.quant.fixed(bits={bits}): 1 to 32 bits are supported")
    if compute is not None and compute not in (f32, builtins.float):
        raise NotImplementedError("qd.types.quant.fixed(compute=...): only qd.f32 is supported by qdexplorer.lang")
    if scale is None:
        scale = max_value / 2 ** (bits - 1) if signed else max_value / 2 ** bits
    return QuantFixed(builtins.int(bits), bool(signed), builtins.float(scale))


def float(exp, frac, signed=True, compute=None) -> QuantFloat:  # noqa: A001 - Quadrants' name
    """`qd.types.quant.float(exp, frac, signed=True)`: a float with `exp` exponent bits and `frac`
    fraction bits (the sign among them when signed), computed in f32."""
    if not (1 <= exp <= 8 and 1 <= frac - builtins.int(bool(signed)) <= 23):
        raise ValueError(f"qd.types.quant.float(exp={exp}, frac={frac}): needs 1..8 exponent bits and at most 23 "
                         f"digit bits (Quadrants' limits)")
    return QuantFloat(builtins.int(exp), builtins.int(frac), bool(signed))


# ---- the host (NumPy) side of the encodings: Python reads and writes of a field


def _wrap_host(raw: np.ndarray, bits: builtins.int, signed: bool, width: builtins.int) -> np.ndarray:
    v = raw.astype(np.int64) & ((1 << bits) - 1)
    if signed:
        v = np.where(v >= 1 << (bits - 1), v - (1 << bits), v)
    return v


def decode_host(q, raw) -> np.ndarray:
    raw = np.asarray(raw)
    if isinstance(q, QuantInt):
        return _wrap_host(raw, q.bits, q.signed, q.compute.bits).astype(q.compute.numpy)
    if isinstance(q, QuantFixed):
        d = _wrap_host(raw, q.bits, q.signed, 32)
        return (d.astype(np.float32) * np.float32(q.scale)).astype(np.float32)
    r = raw.astype(np.uint32)
    digits = r & np.uint32((1 << q.frac) - 1)
    e = (r >> np.uint32(q.frac)) & np.uint32((1 << q.exp) - 1)
    off = np.uint32(q.exp_offset)
    off = np.where(e != 0, off, np.uint32(0)) if q.exp < 8 else off
    shifted = (digits << np.uint32(23 - q.digit_bits)).astype(np.uint32)
    bits = ((e + off).astype(np.uint32) << np.uint32(23)) | (shifted & np.uint32((1 << 23) - 1))
    if q.signed:
        bits = bits | ((shifted & np.uint32(1 << 23)) << np.uint32(8))
    return bits.astype(np.uint32).view(np.float32)


def encode_host(q, values) -> np.ndarray:
    v = np.asarray(values)
    if isinstance(q, QuantInt):
        big = np.asarray(v, dtype=np.float64) if v.dtype.kind == "f" else v.astype(np.int64)
        return (np.trunc(big).astype(np.int64) if v.dtype.kind == "f" else big).astype(q.compute.numpy)
    if isinstance(q, QuantFixed):
        s = v.astype(np.float32) * np.float32(1.0 / q.scale)
        s = s + np.copysign(np.float32(0.5), s).astype(np.float32)
        return np.trunc(s).astype(np.int64).astype(np.int32 if q.signed else np.uint32)
    b = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    D = q.digit_bits
    if D < 23:
        b = (b + (1 << (22 - D))) & 0xFFFFFFFF
    e = ((b >> 23) & 255).astype(np.int64)
    digits = (b >> (23 - D)) & ((1 << D) - 1)
    if q.signed:
        digits = digits | ((b & 0x80000000) >> (31 - D))
    e = np.maximum(e - np.where(e != 0, q.exp_offset, 0), 0)
    digits = np.where(e != 0, digits, 0) & ((1 << q.frac) - 1)
    return (((e.astype(np.uint64) & ((1 << q.exp) - 1)) << q.frac) | digits).astype(np.uint32)


# ---- shared exponents: quant floats that store one exponent, the largest of the group's values


def decode_shared_host(q: QuantFloat, raw) -> np.ndarray:
    """A member of a shared-exponent group: its digits carry a leading 1 (Quadrants'
    `reconstruct_quant_float` with shared_exponent)."""
    r = np.asarray(raw).astype(np.int64)
    e = (r >> q.frac) & ((1 << q.exp) - 1)
    d0 = r & ((1 << q.frac) - 1)
    digits, D = d0.copy(), q.digit_bits
    off = np.full(r.shape, q.exp_offset, np.int64) if q.exp >= 8 else np.where(e != 0, q.exp_offset, 0)
    sign = np.zeros(r.shape, np.int64)
    if q.signed:
        sign = digits & (1 << D)
        digits = (digits ^ sign) << 1
        sign = sign << (31 - D)
    nlz = 32 - np.vectorize(lambda x: builtins.int(x).bit_length(), otypes=[np.int64])(digits) if digits.size else digits
    extra = (31 - D) - nlz
    off = off + extra + (0 if q.signed else 1)
    digits = (digits << ((23 - D) - extra)) & 0xFFFFFFFF
    f = (((e + off) << 23) | (digits & ((1 << 23) - 1))) & 0xFFFFFFFF
    f = np.where((e == 0) | (d0 == 0), 0, f) | sign
    return f.astype(np.uint32).view(np.float32)


def encode_shared_host(qs: list, values: list) -> list:
    """Raw words of every member of a group from their f32 values (Quadrants'
    `store_quant_floats_with_shared_exponents`)."""
    bits = [np.asarray(v, np.float32).view(np.uint32).astype(np.int64) for v in values]
    exps = [(b >> 23) & 255 for b in bits]
    top = exps[0]
    for x in exps[1:]:
        top = np.maximum(top, x)
    first = qs[0]
    stored = np.maximum(top - np.where(top != 0, first.exp_offset, 0), 0) & ((1 << first.exp) - 1)
    out = []
    for q, b, e in zip(qs, bits, exps):
        D, rsb = q.digit_bits, 24 - q.digit_bits
        digits = ((b & ((1 << 23) - 1)) | (1 << 23)) >> np.minimum(top - e, 31)
        digits = np.minimum(digits + (1 << (rsb - 1)), (1 << 24) - 1) >> rsb
        if q.signed:
            digits = digits | ((b & 0x80000000) >> (31 - D))
        out.append(((stored << q.frac) | (digits & ((1 << q.frac) - 1))).astype(np.uint32))
    return out


def decode_field(f, raw) -> np.ndarray:
    """The values of a quantized field's raw words (a shared-exponent member decodes as one)."""
    return decode_shared_host(f.quant, raw) if f.quant_group else decode_host(f.quant, raw)


def store_group(f, key, values, Storage) -> None:
    """Write field `f`, a member of a shared-exponent group, from Python: every member is encoded
    again with the group's new largest exponent (at `key`, or everywhere for key None). `Storage` is
    field.py's base class, whose raw element access this bypasses the fields' own for (passed in:
    field.py imports this module)."""
    group = f.quant_group
    shape = () if key is not None else f.storage.shape
    cur = [np.broadcast_to(np.asarray(values, np.float32), shape) if g is f else
           decode_field(g, Storage.__getitem__(g, key) if key is not None else g.host()) for g in group]
    for g, r in zip(group, encode_shared_host([g.quant for g in group], cur)):
        if key is None:
            g.host()[...] = r.reshape(g.storage.shape)
            g.residency.host_written()
        else:
            Storage.__setitem__(g, key, r.item())


class BitpackedFields:
    """`qd.BitpackedFields(max_num_bits=32)`: fields placed together (`bitpack.place(x, y)`), then
    placed in an SNode (`qd.root.dense(qd.i, n).place(bitpack)`). Each field keeps an element of
    its own here (see the module docstring); the bit budget is checked as Quadrants checks it."""

    def __init__(self, max_num_bits: builtins.int):
        if max_num_bits not in (8, 16, 32, 64):
            raise ValueError(f"qd.BitpackedFields(max_num_bits={max_num_bits}): 8, 16, 32 or 64")
        self.max_num_bits = max_num_bits
        self.fields: list = []
        self.used = 0

    def place(self, *fields, shared_exponent: bool = False):
        if shared_exponent and len(fields) < 2:
            raise QdCompileError("At least 2 fields need to be placed when shared_exponent=True")
        if shared_exponent:  # one exponent for them all: each store re-encodes the group (Field, quant_lower)
            qs = [q for q in (getattr(f, "quant", None) for f in fields) if isinstance(q, QuantFloat)]
            if len(qs) != len(fields) or len({q.exp for q in qs}) != 1:
                raise TypeError("BitpackedFields.place(..., shared_exponent=True) takes quantized floats "
                                "(qd.types.quant.float) with the same number of exponent bits")
            group = list(fields)
            for f in fields:
                f.quant_group = group
            self.used += qs[0].exp + sum(q.frac for q in qs)
            if self.used > self.max_num_bits:
                raise ValueError(f"BitpackedFields.place: the fields need more than max_num_bits="
                                 f"{self.max_num_bits} bits")
            self.fields.extend(fields)
            return
        for f in fields:
            q = getattr(f, "quant", None)
            if q is None:
                raise TypeError(f"BitpackedFields.place: {f!r} is not a field of a quantized type "
                                f"(qd.types.quant.int / fixed / float)")
            bits = (q.exp + q.frac if isinstance(q, QuantFloat) else q.bits) * max(1, builtins.int(
                np.prod(getattr(f, "elem_shape", ()))))  # a vector field: every component
            if self.used + bits > self.max_num_bits:
                raise ValueError(f"BitpackedFields.place: the fields need more than max_num_bits="
                                 f"{self.max_num_bits} bits")
            self.used += bits
            self.fields.append(f)
