"""`qd.ad.Tape(validation=True)` under `qd.init(debug=True)`: Quadrants' global data access rule checker.

Reverse mode is only right when a kernel never overwrites a global it has read (the adjoint of the
read would see the new value). Quadrants checks this at run time: every field with a gradient gets
an "adjoint checkbit" twin, each load of an element sets its bit, and each store or atomic update of
an element first asserts the bit is clear. The bits live as long as the tape (cleared when it is
entered), so a read in one recorded kernel and a write in a later one are caught too. Here the
validating twin of a kernel is its tasks with those bit stores and checks added (the checkbits are
u8 fields of the primal's storage shape), and a failed check raises `QuadrantsAssertionError` with
Quadrants' message when the call returns.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ... import ir
from ..field import memory_order
from ...ir.dtypes import i32, u1, u8

GDAR_FLAG = "gdar__"  # 1 + the index of the first field whose element was overwritten after a read
_STOP = "gdar_stop"  # the label a failed check jumps to: the end of the thread's work, as a failed assert


def checkbit(field):
    """The field's adjoint checkbit twin (made on first use; it lives as long as the field)."""
    cb = field.adjoints.checkbit
    if cb is None:
        # order "K": in the field's memory order (a field nested out of axis order), as kernels index it
        cb = field.twin(f"{field.name}.grad_checkbit" if field.name else "",
                        np.zeros_like(field.storage, np.uint8, subok=False), u8)
        field.adjoints.checkbit = cb
    return cb


def validation_tasks(kernel_name: str, tasks: list, field_of) -> tuple[list, list]:
    """(the tasks with the rule's checks, the names of the checked fields by flag value - 1).
    `field_of(uid)`: the primal field of an implicit field array."""
    checked: dict = {}  # array name -> (checkbit ArrayArg, ImplicitArray)
    names: list = []
    out = []
    for t in tasks:
        extra = []
        for a in t.implicit:
            if a.role != "field" or a.name in checked:
                continue
            f = field_of(int(a.key))
            if f is None or f.adjoints.grad is None:
                continue
            cb = checkbit(f)
            imp = ir.ImplicitArray(f"{a.name}__checkbit", "field", u8, tuple(cb.storage.shape), cb.uid,
                                   layout=memory_order(cb))
            checked[a.name] = (ir.ArrayArg(imp.name, u8, len(imp.shape), layout=imp.layout), imp, len(names) + 1)
            names.append(f.name or a.name)
        body = [ir.Block(_STOP, _check(t.body, checked, kernel_name))]  # a failed check ends the thread's work
        used = {n.name for n in ir.walk(body) if isinstance(n, ir.ArrayArg)}
        extra = [v[1] for k, v in checked.items() if v[1].name in used]
        params = list(t.params) + [ir.Param(i.name, "array", i.dtype, len(i.shape)) for i in extra]
        implicit = tuple(t.implicit) + tuple(extra)
        if GDAR_FLAG in used:
            params.append(ir.Param(GDAR_FLAG, "array", i32, 1))
            implicit += (ir.ImplicitArray(GDAR_FLAG, "assert", i32, (1,)),)
        out.append(dataclasses.replace(t, name=f"{t.name}_validation", kernel=kernel_name, body=body,
                                       params=params, implicit=implicit, fingerprint=""))
    return out, names


def _accesses(node, kinds) -> list:
    return [n for n in ir.walk(node) if isinstance(n, kinds)]


def _check(stmts: list, checked: dict, kernel_name: str) -> list:
    flag = ir.ArrayArg(GDAR_FLAG, i32, 1)
    out: list = []
    for s in stmts:
        head = s.cond if isinstance(s, ir.If) else (None if isinstance(s, (ir.Loop, ir.Block)) else s)
        for ld in _accesses(head, ir.Load):  # a read sets its element's bit
            if ld.array.name in checked:
                out.append(ir.Store(checked[ld.array.name][0], ld.indices, ir.Const(1, u8)))
        for w in _accesses(head, (ir.Store, ir.AtomicRMW)):  # a write first checks it
            if w.array.name in checked:
                bit, _, site = checked[w.array.name]
                read = ir.Compare("!=", ir.Load(bit, w.indices), ir.Const(0, u8), u1)
                out.append(ir.If(read, [ir.Store(flag, (ir.Const(0, i32),), ir.Const(site, i32)), ir.Return(_STOP)], []))
        if isinstance(s, ir.If):
            s = ir.If(s.cond, _check(s.then, checked, kernel_name), _check(s.orelse, checked, kernel_name))
        elif isinstance(s, ir.Loop):
            s = ir.Loop(_check(s.body, checked, kernel_name), _check(s.step, checked, kernel_name), s.where)
        elif isinstance(s, ir.Block):
            s = ir.Block(s.label, _check(s.body, checked, kernel_name), s.real)
        out.append(s)
    return out


def violation_message(kernel_name: str, names: list, flag) -> str | None:
    site = int(flag[0]) if flag is not None else 0
    if site <= 0:
        return None
    name = names[site - 1] if site <= len(names) else "?"
    return (f"(kernel={kernel_name}) Breaks the global data access rule. Snode {name} is overwritten "
            f"unexpectedly (it was read before, in this kernel or an earlier one on the qd.ad.Tape(validation=True))")
