"""Loops inside a task: `while`, `for … in range(…)`, unrolled `qd.static` loops, `break`/`continue`.

A task's own top-level parallel loop is built by `offload.py`; these are the loops inside it.
"""
from __future__ import annotations

import ast
import builtins

from .. import intrinsics as I
from .. import ir
from ..types import i32, loop_index_type, u1
from .values import Py, Vec, cast, is_number, py_value, truthy
from .base import LoweringBase, StaticBreak


class LoopLowering(LoweringBase):
    """Mixin for `TaskBuilder`: lowers loops and loop jumps."""

    def s_While(self, node):
        if node.orelse:
            self.err(node, "while/else is not supported in kernels")
        self.out.append([])
        cond = truthy(self.commit(self.value(node.test), node.test))
        self.emit(ir.If(ir.UnOp("not", cond, u1), [ir.Break()], []))
        saved_depth = self.frame.loop_depth  # negative inside a qd.static loop: a loop in it is a real one
        self.frame.loop_depth = max(saved_depth, 0) + 1
        self.runtime_nesting += 1
        try:
            body = self.block(node.body)
        finally:
            self.frame.loop_depth = saved_depth
            self.runtime_nesting -= 1
        head = self.out.pop()
        self.emit(ir.Loop(head + body))

    def s_For(self, node):
        if node.orelse:
            self.err(node, "for/else is not supported in kernels")
        it = node.iter
        if isinstance(it, ast.IfExp):  # `range(a) if qd.static(c) else range(b)`: picked at compile time
            picked = ast.copy_location(ast.For(node.target, self.static_pick(it), node.body, [], None), node)
            return self.s_For(picked)
        fn = self.value(it.func) if isinstance(it, ast.Call) else None
        if isinstance(fn, Py) and fn.value is I.static:
            return self.static_for(node, self.eval_static(self.one_arg(it)))
        if isinstance(fn, Py) and fn.value in (I.ndrange, I.grouped):
            return self.nested_for(node, fn.value is I.grouped)
        if not (isinstance(fn, Py) and fn.value is builtins.range):
            self.err(it, "inner for loops must iterate over range(...), qd.ndrange(...), qd.grouped(...) "
                         "or qd.static(...)")
        if not isinstance(node.target, ast.Name):
            self.err(node.target, "a range loop needs a single loop variable")
        args = [self.value(a) for a in it.args]
        if not 1 <= len(args) <= 3:
            self.err(it, "range() takes 1 to 3 arguments")
        step = 1
        if len(args) == 3:
            if not is_number(args[2]) or args[2].value == 0:
                self.err(it.args[2], "range()'s step must be a nonzero constant in a kernel")
            step = args[2].value
        begin = self.commit(args[0], it, like=i32) if len(args) > 1 else ir.Const(0, i32)
        end = self.commit(args[-1] if len(args) == 1 else args[1], it, like=i32)
        dt = begin.dtype if begin.dtype.bits >= end.dtype.bits else end.dtype
        if not dt.is_int:
            self.err(it, "range() bounds must be integers")
        var = self.new_local(node.target.id, dt, begin)
        end_l = self.new_local("end", dt, end)
        ref = ir.LocalRef(var)
        test = ir.Compare(">=" if step > 0 else "<=", ref, ir.LocalRef(end_l), u1)
        self.frame.scopes.append({node.target.id: var})
        saved_depth = self.frame.loop_depth  # negative inside a qd.static loop: a loop in it is a real one
        self.frame.loop_depth = max(saved_depth, 0) + 1
        self.runtime_nesting += 1
        try:
            body = self.block(node.body)
        finally:
            self.frame.loop_depth = saved_depth
            self.runtime_nesting -= 1
            self.frame.scopes.pop()
        self.emit(ir.Loop([ir.If(test, [ir.Break()], [])] + body,
                          step=[ir.Assign(var, ir.BinOp("+", ref, ir.Const(step, dt), dt))], where=self.at(node)))

    def static_pick(self, node: ast.IfExp):
        """The branch of `a if c else b` a compile-time condition picks (`qd.static(...)`, a constant)."""
        c = self.value(node.test)
        if not isinstance(c, Py) or isinstance(c.value, (ir.Expr,)):
            self.err(node.test, "a loop's `a if c else b` needs a compile-time condition (qd.static(...))")
        return node.body if c.value else node.orelse

    def nested_for(self, node, grouped: bool):
        """An inner `qd.ndrange(...)` / `qd.grouped(...)`: one ordinary loop per dimension, the first
        outermost (a `break` leaves the innermost one)."""
        it = node.iter
        if grouped:
            inner = it.args[0] if len(it.args) == 1 else None
            if not (isinstance(inner, ast.Call) and self.value(inner.func) == Py(I.ndrange)):
                self.err(it, "an inner qd.grouped() takes a qd.ndrange(...)")
            it = inner
        bounds = []
        for a in it.args:
            if isinstance(a, ast.Starred):  # `qd.ndrange(*shape)`: a compile-time tuple of n or (begin, end)
                v = self.value(a.value)
                if not (isinstance(v, Py) and isinstance(v.value, (tuple, list))):
                    self.err(a, "*args of an inner qd.ndrange must be a constant tuple")
                for x in v.value:
                    lo, hi = tuple(x) if isinstance(x, (tuple, list)) and len(x) == 2 else (0, x)
                    bounds.append((self.commit(Py(lo), a, like=i32), self.commit(Py(hi), a, like=i32)))
            elif isinstance(a, ast.Tuple):
                if len(a.elts) != 2:
                    self.err(a, "ndrange bounds are n or (begin, end)")
                lo_e, hi_e = (self.commit(self.value(x), x, like=i32) for x in a.elts)
                bounds.append((lo_e, hi_e))
            else:
                bounds.append((ir.Const(0, i32), self.commit(self.value(a), a, like=i32)))
        targets = self.frame.src.target_names(node.target)
        if grouped and len(targets) != 1:
            self.err(node.target, "qd.grouped(...) gives one index vector: use one loop variable")
        if not grouped and len(targets) != len(bounds):
            self.err(node.target, f"the loop has {len(bounds)} dimension(s) but {len(targets)} loop variable(s)")
        index_t = loop_index_type(e for r in bounds for e in r)
        loop_vars = [self.new_local(f"nd{k}", index_t, cast(lo, index_t)) for k, (lo, _) in enumerate(bounds)]
        ends = [self.new_local("end", index_t, cast(hi, index_t)) for _, hi in bounds]
        scope = ({targets[0].id: Vec([ir.LocalRef(v) for v in loop_vars])} if grouped
                 else {t.id: v for t, v in zip(targets, loop_vars)})
        self.frame.scopes.append(scope)
        saved_depth = self.frame.loop_depth  # negative inside a qd.static loop: a loop in it is a real one
        self.frame.loop_depth = max(saved_depth, 0) + 1
        self.runtime_nesting += 1
        try:
            body = self.block(node.body)
        finally:
            self.frame.loop_depth = saved_depth
            self.runtime_nesting -= 1
            self.frame.scopes.pop()
        for k in range(len(bounds) - 1, -1, -1):
            ref = ir.LocalRef(loop_vars[k])
            head: list[ir.Stmt] = [ir.If(ir.Compare(">=", ref, ir.LocalRef(ends[k]), u1), [ir.Break()], [])]
            if k + 1 < len(bounds):  # restart the next dimension each time this one advances
                head.append(ir.Assign(loop_vars[k + 1], cast(bounds[k + 1][0], index_t)))
            step = ir.BinOp("+", ref, ir.Const(1, index_t), index_t)
            body = [ir.Loop(head + body, step=[ir.Assign(loop_vars[k], step)])]
        self.emit(body[0])

    def static_for(self, node, seq):
        try:
            items = list(seq)
        except TypeError:
            self.err(node.iter, "qd.static(...) in a for loop must be iterable at compile time")
        names = self.frame.src.target_names(node.target, "static loop targets")
        depth, unroll = self.frame.loop_depth, self.frame.unroll_block
        self.frame.loop_depth = -10_000  # a runtime break/continue cannot target an unrolled loop
        self.frame.unroll_block = len(self.out)  # ... but one reached at compile time stops the unrolling
        try:
            for item in items:
                vals = item if len(names) > 1 else (item,)
                self.frame.scopes.append({n.id: py_value(v) for n, v in zip(names, vals)})
                try:
                    for s in node.body:
                        self.stmt(s)
                except StaticBreak:
                    break
                finally:
                    self.frame.scopes.pop()
        finally:
            self.frame.loop_depth, self.frame.unroll_block = depth, unroll

    def s_Break(self, node):
        self.loop_jump(node, ir.Break(), "break")

    def s_Continue(self, node):
        if self.frame.loop_depth == 0 and self.in_parallel and len(self.frames) == 1:
            self.emit(ir.Continue())  # skips to the next index of the parallel loop
            return
        self.loop_jump(node, ir.Continue(), "continue")

    def loop_jump(self, node, stmt, word):
        if self.frame.loop_depth < 0 and word == "break" and len(self.out) == self.frame.unroll_block:
            raise StaticBreak()  # `if qd.static(i == 2): break` in a qd.static loop: stop unrolling here
        if self.frame.loop_depth < 0:
            self.err(node, f"'{word}' cannot be used in a qd.static loop (it is unrolled)")
        if self.frame.loop_depth == 0:
            where = "the top-level parallel loop" if self.in_parallel else "a serial task outside a loop"
            self.err(node, f"'{word}' is not allowed in {where}")
        self.emit(stmt)
