"""Atomic demotion: `v[i] += dt * f[i]` in a range_for is a plain load, add and store.

In the kernel language `+=` on a global array is atomic. Where no other iteration can touch the
element, the atomic buys nothing and costs a round trip to L2 per update (a `red`, then the
thread's next load of that element waits for it): the 1M-particle step's `integrate` kernel spent
most of its time there. Quadrants demotes such atomics too (its `demote_atomics` pass).

An array's statement-level atomics (result unused) are demoted when every access the task makes
to that array (load, store or atomic, anywhere in its body) puts each of the loop's index
variables, unchanged, at the same position, and only loop-invariant values elsewhere: then the
element an iteration touches carries that iteration's own indices, so no two iterations share one.
Kept atomic: arrays that may alias another parameter (`Task.may_alias`), tasks that assign a loop
variable or call out-of-line functions, float min/max (NaN rules differ), multiply, exchange and
compare-and-swap, and every atomic whose old value is used.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from ..ir import nodes as ir

# atomic op -> the BinOp that replaces it, for floats and for integers
_FLOAT = {"add": "+", "sub": "-"}
_INT = {"add": "+", "sub": "-", "min": "min", "max": "max", "and": "&", "or": "|", "xor": "^"}


def demote_atomics(task: ir.Task) -> ir.Task:
    """The task with its thread-exclusive atomics made plain (the same task if there are none)."""
    if task.type != "range_for" or not task.loop_vars or task.has_calls:
        return task
    loop_vars = list(task.loop_vars)
    if any(isinstance(n, ir.Assign) and any(n.local is v for v in loop_vars) for n in ir.walk(task.body)):
        return task
    candidates = {n.value.array.name for n in ir.walk(task.body)
                  if isinstance(n, ir.ExprStmt) and isinstance(n.value, ir.AtomicRMW) and _demotable_op(n.value)}
    candidates -= set(task.may_alias)
    if not candidates:
        return task
    layout: dict[str, tuple] = {}
    for n in ir.walk([task.body, task.ranges]):
        if isinstance(n, (ir.Load, ir.Store, ir.AtomicRMW)) and isinstance(n.array, ir.ArrayArg) \
                and n.array.name in candidates:
            where = _owner_positions(n.indices, loop_vars)
            if where is None or layout.setdefault(n.array.name, where) != where:
                candidates.discard(n.array.name)
    if not candidates:
        return task
    return dataclasses.replace(task, body=_rewrite(task.body, candidates))


def _demotable_op(e) -> bool:
    if not (isinstance(e, ir.AtomicRMW) and isinstance(e.array, ir.ArrayArg) and e.expected is None):
        return False
    return e.op in (_FLOAT if e.array.dtype.is_float else _INT)


def _owner_positions(indices, loop_vars) -> tuple | None:
    """For each loop variable, the index position that holds it (bare, or widened); None when a
    variable is missing or repeated, or another position depends on anything but invariants."""
    pos: dict[int, int] = {}
    for k, e in enumerate(indices):
        var = _loop_var(e, loop_vars)
        if var is not None:
            if var in pos:
                return None
            pos[var] = k
        elif not _invariant(e):
            return None
    if len(pos) != len(loop_vars):
        return None
    return tuple(pos[v] for v in range(len(loop_vars)))


def _loop_var(e, loop_vars) -> int | None:
    while isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int \
            and e.dtype.bits >= e.operand.dtype.bits:
        e = e.operand
    if isinstance(e, ir.LocalRef):
        for k, v in enumerate(loop_vars):
            if e.local is v:
                return k
    return None


def _invariant(e) -> bool:
    return not any(isinstance(n, (ir.LocalRef, ir.Load, ir.AtomicRMW, ir.SimtIndex)) for n in ir.walk(e))


def _rewrite(stmts: list, arrays: set) -> list:
    out = []
    for s in stmts:
        if isinstance(s, ir.ExprStmt) and isinstance(s.value, ir.AtomicRMW) and _demotable_op(s.value) \
                and s.value.array.name in arrays:
            a = s.value
            op = (_FLOAT if a.array.dtype.is_float else _INT)[a.op]
            old = ir.Load(a.array, a.indices, a.where)
            out.append(ir.Store(a.array, a.indices, ir.BinOp(op, old, a.value, a.array.dtype), a.where))
            continue
        if isinstance(s, ir.Stmt) and not isinstance(s, ir.FuncDef):
            node: Any = s   # every statement is a dataclass
            nested = {f.name: _rewrite(getattr(node, f.name), arrays) for f in dataclasses.fields(node)
                      if isinstance(getattr(node, f.name), list)
                      and any(isinstance(x, ir.Stmt) for x in getattr(node, f.name))}
            if nested:
                s = dataclasses.replace(node, **nested)
        out.append(s)
    return out
