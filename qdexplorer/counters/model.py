"""What can be said without counters: registers, spills, occupancy and a model roofline point.

Registers, spills and theoretical occupancy come from `ptxas -v` (no GPU needed). The roofline
point is a *model*: bytes and FLOPs counted in the task's IR per iteration (each global array
element read or written once, an FMA counted as two operations only when the IR writes a*b+c as
such) times the trip count, placed at the kernel's measured or estimated time. It ignores caches,
inner loop trip counts (an inner loop's body is counted once) and what the compiler removed, so
it is labelled as a model wherever it is shown.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import ir
from .record import Roofline

# H200 (sm_90, 132 SMs) ceilings for the model when no counters gave the GPU's own: FP32 non-tensor
# at the 1.98 GHz boost clock (132 × 128 × 2 × 1.98e9) and HBM3e bandwidth (4.8 TB/s)
MODEL_PEAKS = {"sm_90": (66.9e12, 4.8e12)}
_FLOAT_OPS = {"+", "-", "*", "/", "min", "max", "pow", "**", "atan2"}


@dataclass
class IrCounts:
    bytes_read: int = 0
    bytes_written: int = 0
    flops: int = 0
    notes: list[str] = field(default_factory=list)


def _walk_expr(e: Any, c: IrCounts, seen: set) -> None:
    if isinstance(e, ir.Load):
        if isinstance(e.array, ir.ArrayArg) and (e.array.name, repr(e.indices)) not in seen:
            seen.add((e.array.name, repr(e.indices)))
            c.bytes_read += e.array.dtype.bits // 8
        for i in e.indices:
            _walk_expr(i, c, seen)
        return
    if isinstance(e, ir.BinOp) and e.dtype.is_float and e.op in _FLOAT_OPS:
        c.flops += 1
    if isinstance(e, ir.MathCall) and e.dtype.is_float:
        c.flops += 1
    if isinstance(e, ir.AtomicRMW) and isinstance(e.array, ir.ArrayArg):
        c.bytes_read += e.array.dtype.bits // 8
        c.bytes_written += e.array.dtype.bits // 8
    for name in ("lhs", "rhs", "operand", "cond", "a", "b", "value"):
        sub = getattr(e, name, None)
        if isinstance(sub, ir.Expr):
            _walk_expr(sub, c, seen)
    for sub in getattr(e, "args", ()) if isinstance(e, ir.MathCall) else ():
        _walk_expr(sub, c, seen)


def _walk(body: list, c: IrCounts, seen: set) -> None:
    for s in body:
        if isinstance(s, ir.Store):
            if isinstance(s.array, ir.ArrayArg):
                c.bytes_written += s.array.dtype.bits // 8
            _walk_expr(s.value, c, seen)
            for i in s.indices:
                _walk_expr(i, c, seen)
        elif isinstance(s, ir.Assign):
            _walk_expr(s.value, c, seen)
        elif isinstance(s, ir.ExprStmt):
            _walk_expr(s.value, c, seen)
        elif isinstance(s, ir.If):
            _walk_expr(s.cond, c, seen)
            _walk(s.then, c, seen)
            _walk(s.orelse, c, seen)
        elif isinstance(s, ir.Loop):
            if "inner loops counted once" not in c.notes:
                c.notes.append("inner loops counted once")
            _walk(s.body, c, seen)
            _walk(s.step, c, seen)
        elif isinstance(s, ir.Block):
            _walk(getattr(s, "body", []), c, seen)


def count_ir(task: ir.Task) -> IrCounts:
    """Bytes and FLOPs of one iteration of the task's body."""
    c = IrCounts()
    _walk(task.body, c, set())
    return c


def model_roofline(task: ir.Task, trips: int, seconds: float, arch: str) -> Roofline:
    c = count_ir(task)
    n = max(trips, 1)
    peak_flops, peak_bytes = MODEL_PEAKS.get(arch, (0.0, 0.0))
    return Roofline(flops=float(c.flops * n), bytes=float((c.bytes_read + c.bytes_written) * n), seconds=seconds,
                    peak_flops=peak_flops, peak_bytes=peak_bytes, model=True)


@dataclass
class NoCounters:
    """The view of a task that needs no counters, shown beside the reason there are none."""
    registers: int | None = None
    spill_bytes: int | None = None
    occupancy_pct: float | None = None
    limited_by: str = ""
    roofline: Roofline | None = None
    notes: list[str] = field(default_factory=list)


def no_counters(resources: dict[str, Any], task: ir.Task | None, trips: int, seconds: float, arch: str) -> NoCounters:
    out = NoCounters()
    if resources and not resources.get("error"):
        out.registers = resources.get("registers")
        out.spill_bytes = resources.get("spill_bytes")
        occ = resources.get("occupancy")
        out.occupancy_pct = 100.0 * occ if occ is not None else None
        out.limited_by = resources.get("limited_by", "")
    elif resources.get("error"):
        out.notes.append(f"registers and occupancy unknown: {resources['error']}")
    if task is not None:
        out.roofline = model_roofline(task, trips, seconds, arch)
        out.notes += count_ir(task).notes
    return out
