"""The scalar types the generator draws from, and values worth testing for each.

Kept apart from the generator so that the comparison and the checks of value ranges use the
same table. Nothing here imports either language: a program is only text until a child runs it."""
from __future__ import annotations

from dataclasses import dataclass
from random import Random


@dataclass(frozen=True)
class T:
    name: str       # qd.<name> and np.<numpy>
    bits: int
    kind: str       # "int" | "uint" | "float"
    numpy: str

    @property
    def is_int(self) -> bool:
        return self.kind != "float"

    @property
    def signed(self) -> bool:
        return self.kind != "uint"

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.kind == "int" else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.kind == "int" else (1 << self.bits) - 1

    @property
    def q(self) -> str:
        return f"qd.{self.name}"


INTS = [T("i8", 8, "int", "int8"), T("i16", 16, "int", "int16"), T("i32", 32, "int", "int32"),
        T("i64", 64, "int", "int64"), T("u8", 8, "uint", "uint8"), T("u16", 16, "uint", "uint16"),
        T("u32", 32, "uint", "uint32"), T("u64", 64, "uint", "uint64")]
FLOATS = [T("f16", 16, "float", "float16"), T("f32", 32, "float", "float32"), T("f64", 64, "float", "float64")]
ALL = INTS + FLOATS
BY_NAME = {t.name: t for t in ALL}
I32, I64, F32, F64 = BY_NAME["i32"], BY_NAME["i64"], BY_NAME["f32"], BY_NAME["f64"]

# finite magnitudes kept well inside each float type, so that inputs are ordinary numbers
_FLOAT_SCALE = {16: 200.0, 32: 1e6, 64: 1e12}


def int_value(rng: Random, t: T) -> int:
    """An edge value (0, ±1, the limits and their neighbours) half the time, else a small or a full-range one."""
    r = rng.random()
    if r < 0.4:
        return rng.choice([0, 1, t.lo, t.hi, t.lo + 1, t.hi - 1, 2, 3] + ([-1, -2, -7] if t.signed else [7, 255]))
    if r < 0.75:
        return max(t.lo, min(t.hi, rng.randint(-20, 20)))
    return rng.randint(t.lo, t.hi)


def float_value(rng: Random, t: T) -> float:
    """Dyadic numbers with few mantissa bits (exact in every float type here) and some wider ones."""
    r = rng.random()
    if r < 0.2:
        return rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 0.25])
    if r < 0.7:
        return rng.randint(-64, 64) / 4.0
    return round(rng.uniform(-1.0, 1.0) * _FLOAT_SCALE[t.bits], 2 if t.bits > 16 else 0)


def value(rng: Random, t: T):
    return int_value(rng, t) if t.is_int else float_value(rng, t)


def literal(v, t: T) -> str:
    """Python source for a value of type t, as written into a kernel or into NumPy data."""
    if t.is_int:
        return str(int(v))
    f = float(v)
    if f != f:
        return "float('nan')"
    return repr(f)
