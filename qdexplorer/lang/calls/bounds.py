"""Trip counts of a task's loop, evaluated on the host from the actual arguments.

Grid sizing needs the number of iterations before launch. The bounds are uniform IR
expressions (scalar arguments, shapes, constants), so they are evaluated here in Python where
the arguments were built, and only the resulting counts travel to the device.
"""
from __future__ import annotations

import math
import operator
from typing import Callable

import numpy as np

from ... import ir
from ...ir.dtypes import DType, int_range


DYNAMIC_TRIP = MAX_TRIPS = 2**31 - 1  # the most indices a loop can run (32-bit indices, as in Quadrants)


def trip_count(task: ir.Task, args: dict) -> int:
    """The loop's index count; for bounds read from arrays (`range(lim[0], lim[1])`), which an earlier
    task may write, the most a loop can run: the kernel computes the real bounds and clips to them.
    ValueError (never a wrapped count) at 2^31 or more."""
    if task.type == "serial":
        return 1
    dynamic = task.__dict__.get("_dynamic_trip")  # the IR is fixed after lowering: walk it once
    if dynamic is None:
        dynamic = task.__dict__["_dynamic_trip"] = any(isinstance(n, ir.Load) for n in ir.walk(task.ranges))
    if dynamic:
        return DYNAMIC_TRIP
    total = 1
    for lo, hi in task.ranges:
        a, b = _bound(task, lo, args), _bound(task, hi, args)
        total *= max(0, b - a)
    if total > MAX_TRIPS:
        raise ValueError(f"{task.name} ({task.file}:{task.lines[0]}): {total} iterations is 2^31 or more, which "
                         f"one launch cannot count (32-bit loop index); split the loop (at most 2^31 - 1 "
                         f"iterations)")
    return total


def _bound(task: ir.Task, e: ir.Expr, args: dict) -> int:
    """A loop bound's value before it is narrowed to the loop index type (a u32 or i64 argument
    cast to i32 would otherwise be checked after it wrapped); ValueError if it does not fit."""
    dt = e.dtype
    while isinstance(e, ir.Cast) and e.operand.dtype.is_int:
        e = e.operand
    v = int(eval_expr(e, args))
    lo, hi = int_range(dt)
    if not lo <= v <= hi:
        fix = "pass the bound as qd.i64, or split the loop" if dt.bits < 64 else "split the loop"
        raise ValueError(f"{task.name} ({task.file}:{task.lines[0]}): a loop bound of {v} does not fit the "
                         f"{dt.bits}-bit loop index; {fix} (at most 2^31 - 1 iterations)")
    return v


def trip_counts(tasks, args: dict) -> dict[str, int]:
    return {t.name: trip_count(t, args) for t in tasks}


def eval_expr(e: ir.Expr, args: dict) -> int | float:
    """Evaluate a uniform IR expression (no locals, no loads) with Python numbers."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.ScalarArg):
        return _wrap(args[e.name], e.dtype)
    if isinstance(e, ir.Shape):
        return int(np.shape(args[e.array.name])[e.axis])
    if isinstance(e, ir.Cast):
        v = eval_expr(e.operand, args)
        return float(v) if e.dtype.is_float else _wrap(int(v), e.dtype)
    if isinstance(e, ir.UnOp):
        v = eval_expr(e.operand, args)
        if e.op == "bitcast":
            return np.array(v, e.operand.dtype.numpy).view(e.dtype.numpy).item()
        return {"neg": lambda: -v, "abs": lambda: abs(v), "bitnot": lambda: ~int(v), "not": lambda: int(not v)}[e.op]()
    if isinstance(e, ir.BinOp):
        a, b = eval_expr(e.lhs, args), eval_expr(e.rhs, args)
        if e.op in _BITWISE:  # integer operands only: the frontend refuses them on floats
            return _wrap(_BITWISE[e.op](int(a), int(b)), e.dtype)
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
               "%": lambda: a % b, "/": lambda: a / b, "min": lambda: min(a, b), "max": lambda: max(a, b),
               "rdiv": lambda: int(a / b) if isinstance(a, int) else a / b, "rmod": lambda: math.fmod(a, b)}
        v = ops[e.op]()
        return float(v) if e.dtype.is_float else _wrap(int(v), e.dtype)
    if isinstance(e, ir.Select):
        return eval_expr(e.a, args) if eval_expr(e.cond, args) else eval_expr(e.b, args)
    if isinstance(e, ir.Compare):
        a, b = eval_expr(e.lhs, args), eval_expr(e.rhs, args)
        return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[e.op])
    if isinstance(e, ir.MathCall):
        vals = [eval_expr(a, args) for a in e.args]
        fns: dict[str, Callable[..., int | float]] = {
            "floor": math.floor, "ceil": math.ceil, "sqrt": math.sqrt,
            "ipow": lambda a, b: int(a) ** int(b) if b >= 0 else 1}
        fn = fns.get(e.fn)
        if fn is not None:
            return fn(*vals)
    raise ValueError(f"loop bound uses {type(e).__name__}, which is not known before launch; bounds may only "
                     f"use scalar arguments, x.shape[k] and constants")


_BITWISE: dict[str, Callable[[int, int], int]] = {
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift}


def _wrap(v, dt: DType):
    if dt.is_float:
        return float(v)
    v = int(v)
    if dt.kind == "i":
        m = 1 << dt.bits
        v &= m - 1
        return v - m if v >= m >> 1 else v
    return v & ((1 << dt.bits) - 1)
