"""The derivatives of the unary math functions, as IR: one table that both autodiff modes read.

Reverse mode multiplies an adjoint by these, forward mode a tangent; written once so the two modes
cannot drift apart (they did: `asin`'s forward derivative was `rsqrt(1 - x²)` while the reverse one
was `1 / sqrt(1 - x²)`, which round differently). The forms are Quadrants' own (its reverse-mode
rules), so gradients agree with Quadrants' to the last bit where the arithmetic allows.
"""
from __future__ import annotations

from typing import Callable

from ... import ir
from ...ir.dtypes import DType, u1

ZERO_DERIVATIVE = frozenset({"floor", "ceil", "round", "ipow", "popcnt", "clz", "ffs"})


def cast(e: ir.Expr, dt: DType) -> ir.Expr:
    return e if e.dtype == dt else ir.Cast(e, dt)


def const(v, dt: DType) -> ir.Const:
    return ir.Const(float(v) if dt.is_float else int(v), dt)


def binop(op, a, b, dt):
    return ir.BinOp(op, cast(a, dt), cast(b, dt), dt)


def math(fn, dt, *args):
    return ir.MathCall(fn, tuple(cast(a, dt) for a in args), dt)


def sign(x, dt):
    """sgn(x) as Quadrants differentiates abs: 1, -1, or 0 at x == 0."""
    zero = const(0, dt)
    neg = ir.Select(ir.Compare("<", x, zero, u1), const(-1, dt), zero, dt)
    return ir.Select(ir.Compare(">", x, zero, u1), const(1, dt), neg, dt)


def _one_minus_square(x, dt):
    return binop("-", const(1, dt), binop("*", x, x, dt), dt)


UNARY: dict[str, Callable[[ir.Expr, DType], ir.Expr]] = {
    "sqrt": lambda x, dt: binop("/", const(0.5, dt), math("sqrt", dt, x), dt),
    "rsqrt": lambda x, dt: binop("*", const(-0.5, dt), power(math("rsqrt", dt, x), const(3, dt), dt), dt),
    "sin": lambda x, dt: math("cos", dt, x),
    "cos": lambda x, dt: ir.UnOp("neg", math("sin", dt, x), dt),
    "tan": lambda x, dt: binop("+", const(1, dt), binop("*", math("tan", dt, x), math("tan", dt, x), dt), dt),
    "exp": lambda x, dt: math("exp", dt, x),
    "log": lambda x, dt: binop("/", const(1, dt), x, dt),
    "tanh": lambda x, dt: binop("-", const(1, dt), binop("*", math("tanh", dt, x), math("tanh", dt, x), dt), dt),
    "asin": lambda x, dt: binop("/", const(1, dt), math("sqrt", dt, _one_minus_square(x, dt)), dt),
    "acos": lambda x, dt: ir.UnOp("neg", binop("/", const(1, dt), math("sqrt", dt, _one_minus_square(x, dt)), dt), dt),
    "atan": lambda x, dt: binop("/", const(1, dt), binop("+", const(1, dt), binop("*", x, x, dt), dt), dt),
    "abs": lambda x, dt: sign(x, dt),
}


def adjoint(fn: str, a: ir.Expr, x: ir.Expr, dt: DType) -> ir.Expr:
    """What reverse mode adds to x's adjoint for `fn(x)` whose adjoint is `a`: `a * fn'(x)`, except
    `log`, which Quadrants divides (`a / x`, not `a * (1 / x)`, which rounds twice)."""
    if fn == "log":
        return binop("/", a, x, dt)
    return binop("*", a, UNARY[fn](x, dt), dt)


def tangent(fn: str, t: ir.Expr, x: ir.Expr, dt: DType) -> ir.Expr:
    """Forward mode's tangent of `fn(x)` given x's tangent `t`: `fn'(x) * t`, `log` divided (`t / x`)."""
    if fn == "log":
        return binop("/", t, x, dt)
    return binop("*", UNARY[fn](x, dt), t, dt)


MAX_WEAKEN_EXPONENT = 32  # Quadrants' algebraic simplifier: x ** n, |n| <= 32, becomes multiplications


def power(x: ir.Expr, y: ir.Expr, dt: DType) -> ir.Expr:
    """x ** y as Quadrants computes it once its algebraic simplifier has run: a constant exponent of
    1 is x, 0 is 1, 0.5 is sqrt(x), a whole n in [1, 32] is exponentiation by squaring (`x * (x * x)`
    for 3, `(x * x) * (x * x)` for 4), -n is 1 / that; anything else the pow function."""
    if isinstance(y, ir.Const) and dt.is_float:
        n = float(y.value)
        if n == 0.5:
            return math("sqrt", dt, x)
        if n == round(n) and 0 <= abs(n) <= MAX_WEAKEN_EXPONENT:
            if n == 0:
                return const(1, dt)
            chain = squarings(cast(x, dt), int(abs(n)), dt)
            return chain if n > 0 else binop("/", const(1, dt), chain, dt)
    return math("pow", dt, x, y)


def squarings(x: ir.Expr, n: int, dt: DType) -> ir.Expr:
    """Quadrants' `a ** n` by squaring, operand for operand: the result so far times the next power."""
    result: ir.Expr | None = None
    p, bit = x, 1
    while True:
        if n & bit:
            result = p if result is None else ir.BinOp("*", result, p, dt)
        bit <<= 1
        if bit > n:
            assert result is not None  # n >= 1
            return result
        p = ir.BinOp("*", p, p, dt)


def unary(fn: str, x: ir.Expr, dt: DType) -> ir.Expr | None:
    """d fn(x) / dx as IR; None where it is zero everywhere it exists (floor, round...). KeyError for
    a function that is not differentiable (the callers word the error for their mode)."""
    if fn in ZERO_DERIVATIVE:
        return None
    return UNARY[fn](x, dt)
