"""Out-of-line functions of a task (`ir.FuncDef`, a recursive `@qd.real_func`) and calls of them.

A callee is an internal function of the task's own module (the module stays self-contained). It
sees the task's arrays and scalars the way the entry does: the entry's arrays (pointer and
extents), scalar arguments and debug record are passed on to it as leading arguments, in one
fixed order, so its body is emitted with the same code as the entry's. Then come its own
parameters by value, and one pointer per result, to the caller's local. The callee keeps no
reduction or privatization state of the entry (tasks with calls have none: reduction.py,
privatize.py) and no line info (its instructions belong to no debug subprogram of the entry).
"""
from __future__ import annotations

import copy

from llvmlite import ir as L

from .. import ir
from .abi import PTR, lltype
from .emitter_base import EmitterBase


class CallEmitter(EmitterBase):
    """Mixin of the task emitter: `s_FuncDef` and `s_Call`."""

    def s_FuncDef(self, s: ir.FuncDef):
        self.callee(s)

    def s_Call(self, s: ir.Call):
        fn = self.m.globals.get(s.func)
        if fn is None:
            fn = self.callee(self._funcdefs()[s.func])
        args = [self.expr(a) for a in s.args]
        outs = [self.slot(o) for o in s.outs]
        self.b.call(fn, self._context() + args + outs)

    def _funcdefs(self) -> dict:
        found = self.__dict__.get("_fdefs")
        if found is None:
            found = self.__dict__["_fdefs"] = {n.name: n for n in ir.walk(self.t.body) if isinstance(n, ir.FuncDef)}
        return found

    def _context(self) -> list:
        """The entry's arrays, scalars and debug record as the current function sees them."""
        vals = []
        for name in sorted(self.arrays):
            ptr, shape = self.arrays[name]
            vals += [ptr, *shape]
        vals += [self.scalars[n] for n in sorted(self.scalars)]
        if self.sig.debug_ptr is not None:
            vals.append(self.sig.debug_ptr)
        return vals

    def callee(self, s: ir.FuncDef) -> L.Function:
        existing = self.m.globals.get(s.name)
        if existing is not None:
            return existing
        ctx = self._context()
        ty = L.FunctionType(L.VoidType(), [v.type for v in ctx] + [lltype(p.dtype) for p in s.params]
                            + [PTR] * len(s.outs))
        fn = L.Function(self.m, ty, s.name)
        fn.linkage = "internal"
        saved = {k: getattr(self, k) for k in ("fn", "b", "alloca_b", "loops", "labels", "reductions",
                                               "accumulators", "arrays", "scalars", "sig", "line_info")}
        try:
            it = iter(fn.args)
            self.arrays = {}
            for name in sorted(saved["arrays"]):
                ptr = next(it)
                self.arrays[name] = (ptr, [next(it) for _ in saved["arrays"][name][1]])
            self.scalars = {name: next(it) for name in sorted(saved["scalars"])}
            self.sig = copy.copy(self.sig)
            if self.sig.debug_ptr is not None:
                self.sig.debug_ptr = next(it)
            self.fn, self.loops, self.labels, self.reductions, self.accumulators = fn, [], {}, {}, {}
            self.line_info = None
            self.alloca_b = L.IRBuilder(fn.append_basic_block("entry"))
            self.b = L.IRBuilder(fn.append_basic_block("start"))
            for p in s.params:
                self.b.store(next(it), self.slot(p))
            for o in s.outs:
                self.slots[id(o)] = next(it)
            end = fn.append_basic_block(s.label)
            self.labels[s.label] = end
            self.stmts(s.body)
            if not self.b.block.is_terminated:
                self.b.branch(end)
            self.b.position_at_end(end)
            self.b.ret_void()
            self.alloca_b.branch(fn.basic_blocks[1])
        finally:
            for k, v in saved.items():
                setattr(self, k, v)
        return fn
