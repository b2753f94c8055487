"""Random expressions of a known type, free of undefined behaviour.

Every expression the generator makes has exactly the type it asked for: operands of a binary
operation share it, and anything else goes through `qd.cast`. Undefined behaviour is kept out
where the two languages could legitimately differ: integer division and modulo never see a zero
divisor (nor -1, whose quotient of the minimum overflows), shift counts are masked below the width,
and a float is cast to an integer only when a guard has checked that it is in range (NaN fails the
guard). Operands that need a guard are first stored in a local (`hoist`), so the text stays small.

Mixed-type operations (Quadrants' type promotion, untyped literals) are made by `mixed`, whose
result type the generator does not claim to know: it is stored into a 64-bit slot."""
from __future__ import annotations

from random import Random
from typing import Callable

from .types import ALL, FLOATS, I32, INTS, T, literal, value

# {a} is the operand, {c} a typed constant maker: untyped float literals are f32 and would promote f16
TRANSCENDENTAL = ["qd.sin({a})", "qd.cos({a})", "qd.exp(qd.min({a}, {c10}))", "qd.log(qd.abs({a}) + {c1})",
                  "qd.tanh({a})", "qd.atan2({a}, {c15})", "qd.sqrt(qd.abs({a}))"]


class Scope:
    """The variables in view at a point of a kernel body, by type."""

    def __init__(self, parent: "Scope | None" = None):
        self.vars: list[tuple[str, T]] = list(parent.vars) if parent else []

    def of(self, t: T) -> list[str]:
        return [n for n, vt in self.vars if vt == t]

    def add(self, name: str, t: T) -> None:
        self.vars.append((name, t))


class ExprGen:
    """Builds expressions; `hoist(text, t)` (given by the body generator) stores a value in a fresh
    local and returns its name. `trans` allows transcendental functions on floats."""

    def __init__(self, rng: Random, hoist: Callable[[str, T], str], trans: bool, types: list[T]):
        self.rng, self.hoist, self.trans, self.types = rng, hoist, trans, types

    def lit(self, t: T) -> str:
        v = value(self.rng, t)
        if t == I32 and -100 <= v <= 100:  # small: literals fold in Python, and Quadrants refuses a fold past i32
            return literal(v, t) if v >= 0 else f"({v})"
        return self.const(v, t)

    @staticmethod
    def const(v, t: T) -> str:
        """A typed constant of value v."""
        if t.is_int and not (-(2 ** 31) <= v < 2 ** 31):
            # wide constants are built from i32-sized pieces, since an untyped literal is an i32 first
            bits = v % (1 << t.bits)
            parts = [f"(qd.cast({(bits >> s) & 0xFFFF}, {t.q}) << qd.cast({s}, {t.q}))" for s in (48, 32, 16) if s < t.bits]
            return f"({' | '.join(parts)} | qd.cast({bits & 0xFFFF}, {t.q}))"
        return f"qd.cast({literal(v, t)}, {t.q})"

    def expr(self, t: T, scope: Scope, depth: int) -> str:
        r = self.rng.random()
        names = scope.of(t)
        if depth <= 0 or r < 0.25:
            if names and self.rng.random() < 0.75:
                return self.rng.choice(names)
            return self.lit(t)
        if r < 0.4:
            return self.cast_from(t, scope, depth - 1)
        return self.int_op(t, scope, depth - 1) if t.is_int else self.float_op(t, scope, depth - 1)

    def cast_from(self, t: T, scope: Scope, depth: int) -> str:
        s = self.rng.choice(self.types)
        e = self.expr(s, scope, depth)
        if s.is_int or not t.is_int:
            return f"qd.cast({e}, {t.q})"
        v = self.hoist(e, s)
        # the guard keeps the value in 8-bit range: Quadrants 1.3.3 folds int(int(f64 -> i64) -> i8) into
        # one f64 -> i8 conversion, out of range for wider values (282825765917.0 gives 0, not 29)
        lo = "-128.0" if t.signed else "-1.0"
        cmp_lo = ">=" if t.signed else ">"
        hi = 128.0 if t.signed else 256.0
        return f"qd.cast({v} if {v} {cmp_lo} {lo} and {v} < {hi} else qd.cast(0, {s.q}), {t.q})"

    def int_op(self, t: T, scope: Scope, depth: int) -> str:
        rng = self.rng
        a = self.expr(t, scope, depth)
        op = rng.choice(["+", "-", "*", "&", "|", "^", "//", "%", "<<", ">>", "min", "max", "neg", "inv",
                         "abs", "pow", "ifexp", "shr"])
        if op in ("neg", "inv"):
            return f"({'-' if op == 'neg' else '~'}{a})"
        if op == "abs":  # Quadrants 1.3.3 aborts on qd.abs of i8/i16 ("emit_extra_unary: Not supported"), and
            # its abs of the minimum is LLVM poison (the stored bits wrap, but `a < 0` is false and a shift
            # after it is logical): the operand is kept above the minimum; and it folds abs of an i64
            # constant through f64 (abs(2**63 - 1) folds to -2**63): the operand reads the zero cell
            return (f"qd.abs(qd.max({a}, {self.const(t.lo + 1, t)}) + qd.cast(dz[None], {t.q}))"
                    if t.signed and t.bits >= 32 else a)
        if op == "pow":  # on loaded values only: Quadrants 1.3.3 folds a constant int ** through a float and
            # saturates (i32 (-2147483647) ** 2 folds to -2147483648, runs as 1), unlike its own runtime
            loaded = [n for n in scope.of(t) if n[:2] in ("a_", "b_")]
            return f"({rng.choice(loaded)} ** {rng.randint(0, 3)})" if loaded else f"({a} * {a})"
        if op == "ifexp":
            return f"({a} if {self.cond(scope, depth)} else {self.expr(t, scope, depth)})"
        b = self.expr(t, scope, depth)
        if op in ("min", "max"):  # Quadrants 1.3.3 aborts on min/max of 8-bit integers
            return f"qd.{op}({a}, {b})" if t.bits > 8 else f"({a} ^ {b})"
        if op in ("//", "%") and t.bits == 8:  # Quadrants 1.3.3 gives 0 or 1 for any 8-bit // and % (a bug)
            op = "-"
        if op in ("//", "%"):
            # the divisor reads the zero cell `dz`: Quadrants 1.3.3 folds `//` and `%` of two constants with
            # C's truncation (-2 // 7 is 0, -2 % 7 is -2), while it runs them with Python's floor semantics
            d = self.hoist(f"{b} + qd.cast(dz[None], {t.q})", t)
            bad = f"{d} != 0 and {d} != -1" if t.signed else f"{d} != 0"
            return f"({a} {op} ({d} if {bad} else qd.cast(3, {t.q})))"
        if op in ("<<", ">>", "shr"):
            count = f"({b} & qd.cast({t.bits - 1}, {t.q}))"
            return f"qd.bit_shr({a}, {count})" if op == "shr" else f"({a} {op} {count})"
        return f"({a} {op} {b})"

    def float_op(self, t: T, scope: Scope, depth: int) -> str:
        rng = self.rng
        a = self.expr(t, scope, depth)
        if self.trans:  # only continuous operations, so that a last-bit difference stays small
            ops = ["+", "-", "*", "/", "neg", "abs", "sqrt"] + ["trans"] * 4
        else:
            ops = ["+", "-", "*", "/", "min", "max", "neg", "abs", "sqrt", "floor", "ceil", "ifexp", "//", "%"]
        op = rng.choice(ops)
        if op == "neg":
            return f"(-{a})"
        if op in ("abs", "sqrt"):
            return f"qd.sqrt(qd.abs({a}))" if op == "sqrt" else f"qd.abs({a})"
        if op in ("floor", "ceil"):
            return f"qd.{op}({a})"
        if op == "trans":
            return rng.choice(TRANSCENDENTAL).format(a=a, c10=f"qd.cast(10.0, {t.q})", c1=f"qd.cast(1.0, {t.q})",
                                                     c15=f"qd.cast(1.5, {t.q})")
        if op == "ifexp":
            return f"({a} if {self.cond(scope, depth)} else {self.expr(t, scope, depth)})"
        b = self.expr(t, scope, depth)
        if op in ("min", "max"):
            return f"qd.{op}({a}, {b})"
        if op == "/" and self.trans:  # a divisor of at least one keeps relative errors from growing
            return f"({a} / (qd.abs({b}) + qd.cast(1.0, {t.q})))"
        return f"({a} {op} {b})"

    def cond(self, scope: Scope, depth: int) -> str:
        r = self.rng.random()
        if self.trans:  # branches only on loop indices: a float near a threshold would flip one
            idx = scope.of(I32) or ["0"]
            return f"({self.rng.choice(idx)} % {self.rng.randint(2, 4)} {self.rng.choice(['==', '!='])} 0)"
        if depth > 0 and r < 0.2:
            return f"({self.cond(scope, depth - 1)} {self.rng.choice(['and', 'or'])} {self.cond(scope, depth - 1)})"
        if depth > 0 and r < 0.28:
            return f"(not {self.cond(scope, depth - 1)})"
        t = self.pick_type(scope)
        op = self.rng.choice(["<", "<=", ">", ">=", "==", "!="])
        a, b = self.expr(t, scope, min(depth, 1)), self.expr(t, scope, min(depth, 1))
        if op == "!=" and not t.is_int:  # Quadrants 1.3.3's float != is ordered (false with a NaN); ours is
            return f"(not ({a} == {b}))"  # Python's / IEEE's (true): the generator writes it unambiguously
        return f"({a} {op} {b})"

    def pick_type(self, scope: Scope) -> T:
        """A type, mostly one that has variables in scope."""
        have = [vt for _, vt in scope.vars if vt in self.types]
        if have and self.rng.random() < 0.8:
            return self.rng.choice(have)
        return self.rng.choice(self.types)

    def mixed(self, scope: Scope) -> tuple[str, bool]:
        """An operation on operands of two types (or a type and an untyped literal); returns the text
        and whether a float may be in it (its result is stored in an f64 slot, else an i64 one)."""
        rng = self.rng
        a_t = self.pick_type(scope)
        a = self.expr(a_t, scope, 1)
        if rng.random() < 0.4:
            b_t = I32 if rng.random() < 0.7 else FLOATS[1]
            v = rng.randint(-9, 9) if b_t.is_int else rng.randint(-9, 9) / 2
            b = f"({v})" if v < 0 else str(v)
        else:
            b_t = rng.choice(self.types)
            b = self.expr(b_t, scope, 1)
        has_float = not (a_t.is_int and b_t.is_int)
        ops = ["+", "-", "*"] + ([] if has_float else ["&", "|", "^"])
        text = f"({a} {rng.choice(ops)} {b})"
        return text, has_float

    @staticmethod
    def types_for(rng: Random, allow_f16: bool) -> list[T]:
        """A few types per program, so that variables of one type meet each other."""
        pool = [t for t in ALL if allow_f16 or t.name != "f16"]
        k = rng.randint(2, 4)
        picked = rng.sample(pool, k)
        if not any(t.is_int for t in picked):
            picked.append(rng.choice(INTS))
        return picked
