"""What a backend needs to launch one task: a picklable `LaunchSpec`, and per-launch timings.

Grid sizing needs the trip count on the host, so the range bounds (IR expressions over scalar
arguments, shapes and constants) are evaluated here in Python with the actual arguments.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from ..lang import ir
from ..lang.types import DType


@dataclass
class LaunchSpec:
    task: str
    kernel: str
    type: str                       # 'range_for' | 'serial'
    params: list[ir.Param]
    abi: list[tuple[str, str]]
    ranges: list[tuple[ir.Expr, ir.Expr]] = field(default_factory=list)
    block_dim: int | None = None
    serialize: bool = False
    uses_block_features: bool = False
    vector: int = 1                 # indices per thread per grid-stride step (codegen's coarsening)

    @classmethod
    def of(cls, task: ir.Task, abi, vector: int = 1) -> "LaunchSpec":
        return cls(task.name, task.kernel, task.type, list(task.params), list(abi), list(task.ranges),
                   task.block_dim, task.serialize, task.uses_block_features, vector)

    def trip_count(self, args: dict) -> int:
        if self.type == "serial":
            return 1
        total = 1
        for lo, hi in self.ranges:
            total *= max(0, eval_expr(hi, args) - eval_expr(lo, args))
        return total


@dataclass(slots=True)
class LaunchTiming:
    """One timed launch of one task; the same record whichever backend ran it."""
    task: str
    kernel: str
    backend: str
    ms: float
    grid: int
    block: int
    repeat: int = 0
    workload: str = ""
    bytes_moved: int = 0
    cpu_ms: float | None = None     # CPU backend: process CPU time of the launch (immune to a busy machine)

    def to_dict(self) -> dict:
        return asdict(self)


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
        return {"neg": lambda: -v, "abs": lambda: abs(v), "bitnot": lambda: ~v, "not": lambda: int(not v)}[e.op]()
    if isinstance(e, ir.BinOp):
        a, b = eval_expr(e.lhs, args), eval_expr(e.rhs, args)
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "//": lambda: a // b,
               "%": lambda: a % b, "/": lambda: a / b, "min": lambda: min(a, b), "max": lambda: max(a, b),
               "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b,
               ">>": lambda: a >> b}
        v = ops[e.op]()
        return float(v) if e.dtype.is_float else _wrap(int(v), e.dtype)
    if isinstance(e, ir.Select):
        return eval_expr(e.a, args) if eval_expr(e.cond, args) else eval_expr(e.b, args)
    if isinstance(e, ir.Compare):
        a, b = eval_expr(e.lhs, args), eval_expr(e.rhs, args)
        return int({"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[e.op])
    if isinstance(e, ir.MathCall):
        vals = [eval_expr(a, args) for a in e.args]
        fn = {"floor": math.floor, "ceil": math.ceil, "sqrt": math.sqrt}.get(e.fn)
        if fn is not None:
            return fn(*vals)
    raise ValueError(f"loop bound uses {type(e).__name__}, which is not known before launch; bounds may only "
                     f"use scalar arguments, x.shape[k] and constants")


def _wrap(v, dt: DType):
    if dt.is_float:
        return float(v)
    v = int(v)
    if dt.kind == "i":
        m = 1 << dt.bits
        v &= m - 1
        return v - m if v >= m >> 1 else v
    return v & ((1 << dt.bits) - 1)

