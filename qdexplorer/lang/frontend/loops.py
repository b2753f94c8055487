"""Loops inside a task: `while`, `for … in range(…)`, unrolled `qd.static` loops, `break`/`continue`.

A task's own top-level parallel loop is built by `offload.py`; these are the loops inside it.
"""
from __future__ import annotations

import ast
import builtins

import numpy as np

from .. import intrinsics as I
from ... import ir
from ...ir.errors import QdCompileError, QuadrantsSyntaxError, QuadrantsTypeError, QuadrantsValueError
from ..compat.graph_api import construct as graph_construct, warn_if_deprecated
from ..tasks.toplevel import check_for
from ...ir.dtypes import i32, loop_index_type, u1
from .values import Py, ShapeTuple, Vec, cast, is_number, py_value, truthy
from .base import LoweringBase, StaticBreak, StaticContinue


class LoopLowering(LoweringBase):
    """Mixin for `TaskBuilder`: lowers loops and loop jumps."""

    def s_While(self, node):
        if node.orelse:
            self.err(node, "'else' clause for 'while' not supported in Quadrants kernels", QuadrantsSyntaxError)
        if graph_construct(node.test, self.frame.env) == "do_while":
            return self.graph_do_while(node)
        self.out.append([])
        cond = truthy(self.condition(self.value(node.test), node.test))
        self.emit(ir.If(ir.UnOp("not", cond, u1), [ir.Break()], []))
        body = self.runtime_loop_body(node.body)
        head = self.out.pop()
        self.emit(ir.Loop(head + body))

    def runtime_loop_body(self, stmts, scope: dict | None = None) -> list:
        """`stmts` lowered as the body of a loop that runs at run time, with `scope` (its loop variables)
        visible: one loop deeper for `break`/`continue`, even inside a qd.static loop (whose depth is
        negative, as an unrolled loop is no target for them)."""
        if scope is not None:
            self.frame.scopes.append(scope)
        saved_depth = self.frame.loop_depth
        self.frame.loop_depth = max(saved_depth, 0) + 1
        self.runtime_nesting += 1
        try:
            return self.block(stmts)
        finally:
            self.frame.loop_depth = saved_depth
            self.runtime_nesting -= 1
            if scope is not None:
                self.frame.scopes.pop()

    def s_For(self, node):
        kernel_args = self.kscope.arg_values if len(self.frames) == 1 else {}
        check_for(node, self.frame.env, self.frame.src,
                  {n for scope in self.frame.scopes for n in scope if n not in kernel_args})
        it = node.iter
        if isinstance(it, ast.IfExp):  # `range(a) if qd.static(c) else range(b)`: picked at compile time
            picked = ast.copy_location(ast.For(node.target, self.static_pick(it), node.body, [], None), node)
            return self.s_For(picked)
        fn = self.value(it.func) if isinstance(it, ast.Call) else None
        if isinstance(fn, Py) and fn.value is I.static:
            return self.static_for(node, self.eval_static(self.one_arg(it)))
        if isinstance(fn, Py) and fn.value in (I.ndrange, I.grouped):
            return self.nested_for(node, fn.value is I.grouped)
        if fn is None and not isinstance(it, (ast.Tuple, ast.List)):  # `for i, j in x`: an inner struct-for
            bounds = self.array_bounds(it)
            if bounds is not None:
                return self.nested_for(node, False, bounds)
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
        # a float bound is cast to i32, as Quadrants casts range()'s bounds (with a warning): range(3.7) runs 3 times
        begin, end = (cast(e, i32) if e.dtype.is_float else e for e in (begin, end))
        dt = begin.dtype if begin.dtype.bits >= end.dtype.bits else end.dtype
        if not dt.is_int:
            self.err(it, "range() bounds must be integers")
        var = self.new_local(node.target.id, dt, begin)
        end_l = self.new_local("end", dt, end)
        ref = ir.LocalRef(var)
        test = ir.Compare(">=" if step > 0 else "<=", ref, ir.LocalRef(end_l), u1)
        body = self.runtime_loop_body(node.body, {node.target.id: var})
        self.emit(ir.Loop([ir.If(test, [ir.Break()], [])] + body,
                          step=[ir.Assign(var, ir.BinOp("+", ref, ir.Const(step, dt), dt))], where=self.at(node)))

    def static_pick(self, node: ast.IfExp):
        """The branch of `a if c else b` a compile-time condition picks (`qd.static(...)`, a constant)."""
        c = self.value(node.test)
        if not isinstance(c, Py) or isinstance(c.value, (ir.Expr,)):
            self.err(node.test, "a loop's `a if c else b` needs a compile-time condition (qd.static(...))")
        return node.body if c.value else node.orelse

    def array_bounds(self, arr_node) -> list | None:
        """(0, extent) per index axis of the ndarray or dense field `arr_node` names (an inner
        struct-for, `for i in x` / `for I in qd.grouped(x)`, which Quadrants allows where a func's
        loop is inlined), or None when it is not one."""
        v = self.value(arr_node)
        if not isinstance(v, ir.ArrayArg):
            return None
        if v.name in self.kscope.field_objs and (self.runtime_nesting or self.in_parallel):
            self.err(arr_node, "struct_for cannot be nested inside a kernel: a loop over a field must not sit in "
                               "another loop (only an ndarray's can); loop over the field at the top level")
        sparse = self.kscope.sparse_field(v.name)
        if sparse is not None:  # `for p in x` in a @qd.func called at the kernel's top level (Quadrants inlines
            # it there: a struct-for): every cell, the body run where x's sparse containers hold it
            self._sparse_loop = sparse.snode
        return [(ir.Const(0, i32), ir.Shape(v, k)) for k in range(self.user_ndim(v))]

    def ndrange_bounds(self, it: ast.Call) -> tuple[list[tuple[ir.Expr, ir.Expr]], tuple[int, ...]]:
        """`qd.ndrange(...)`'s (begin, end) per dimension, in the user's order, and the order to visit
        them in (`axes=`: outermost first). Each argument is n, (begin, end), or `*shape` / `*t` of a
        compile-time tuple (an end below its begin is an empty range where the loop is made)."""
        bounds: list[tuple[ir.Expr, ir.Expr]] = []

        def scalar(v, at) -> ir.Expr:
            e = self.commit(v, at, like=i32)
            if not e.dtype.is_int:
                self.err(at, "Every argument of ndrange should be an integer scalar or a tuple/list of (int, int)",
                         QuadrantsTypeError)
            return e

        def pair(v, at):
            if isinstance(v, Py) and isinstance(v.value, (tuple, list)):
                if len(v.value) != 2:
                    self.err(at, "Every argument of ndrange should be a scalar or a tuple/list like (begin, end)",
                             QuadrantsSyntaxError)
                lo, hi = (scalar(Py(x), at) for x in v.value)
            else:
                lo, hi = ir.Const(0, i32), scalar(v, at)
            bounds.append((lo, hi))

        for a in it.args:
            if isinstance(a, ast.Starred):
                try:  # `*((0, n),) * 3`, `*[[1, 3]] * 3`: Python values, computed as Python computes them
                    v = Py(self.eval_static(a.value))
                except QdCompileError:
                    v = self.value(a.value)  # `*x.shape` of an ndarray argument
                if isinstance(v, ShapeTuple):
                    bounds.extend((ir.Const(0, i32), ir.Shape(v.array, k)) for k in range(v.ndim))
                elif isinstance(v, Py) and isinstance(v.value, (tuple, list, range, np.ndarray)) and \
                        np.ndim(v.value) >= 1:  # `*arr` of a NumPy array: its items, as Python unpacks them
                    for x in (v.value.tolist() if isinstance(v.value, np.ndarray) else v.value):
                        pair(Py(x.item() if isinstance(x, np.generic) else x), a)
                else:
                    what = type(v.value).__name__ if isinstance(v, Py) else "a kernel value"
                    self.err(a, f"*args of qd.ndrange must be a shape, a tuple, a list or a NumPy array known when "
                                f"compiling, not a generator (got {what}: make it a tuple first)", QuadrantsValueError)
            elif isinstance(a, ast.Tuple):
                if len(a.elts) != 2:
                    self.err(a, "Every argument of ndrange should be a scalar or a tuple/list like (begin, end)",
                             QuadrantsSyntaxError)
                lo, hi = (scalar(self.value(x), x) for x in a.elts)
                bounds.append((lo, hi))
            else:
                pair(self.value(a), a)
        axes = None
        for kw in it.keywords:
            if kw.arg != "axes":
                self.err(kw, f"qd.ndrange() has no keyword '{kw.arg}' (only axes=)")
            try:
                axes = I.ndrange_axes(self.eval_static(kw.value), len(bounds))
            except (QuadrantsSyntaxError, QuadrantsTypeError) as e:
                self.err(kw, e.message, type(e))
        return bounds, axes or tuple(range(len(bounds)))

    def nested_for(self, node, grouped: bool, bounds: list | None = None):
        """An inner `qd.ndrange(...)` / `qd.grouped(...)` / struct-for over an array (`bounds` given):
        one ordinary loop per dimension, the first outermost (a `break` leaves the innermost one)."""
        it = node.iter
        if grouped and bounds is None:
            inner = it.args[0] if len(it.args) == 1 else None
            if not (isinstance(inner, ast.Call) and self.value(inner.func) == Py(I.ndrange)):
                bounds = self.array_bounds(inner) if inner is not None else None
                if bounds is None:
                    self.err(it, "an inner qd.grouped() takes a qd.ndrange(...), an ndarray or a field")
            it = inner
        sparse_leaf = self.__dict__.pop("_sparse_loop", None) if bounds is not None else None
        if bounds is None:
            canonical, order = self.ndrange_bounds(it)
        else:  # a struct-for over an array: its axes in order
            canonical, order = list(bounds), tuple(range(len(bounds)))
        bounds = [canonical[a] for a in order]  # loop nest levels, outermost first
        targets = self.frame.src.target_names(node.target)
        if grouped and len(targets) != 1:
            self.err(node.target, "qd.grouped(...) gives one index vector: use one loop variable")
        if not grouped and len(targets) != len(bounds):
            self.err(node.target, ndrange_arity_message(len(bounds), len(targets)), QuadrantsSyntaxError)
        index_t = loop_index_type(e for r in bounds for e in r)
        loop_vars = [self.new_local(f"nd{k}", index_t, cast(lo, index_t)) for k, (lo, _) in enumerate(bounds)]
        ends = [self.new_local("end", index_t, cast(hi, index_t)) for _, hi in bounds]
        by_axis = [loop_vars[order.index(k)] for k in range(len(order))]  # the canonical index of each axis
        scope = ({targets[0].id: Vec([ir.LocalRef(v) for v in by_axis])} if grouped
                 else {t.id: v for t, v in zip(targets, by_axis)})
        body = self.runtime_loop_body(node.body, scope)
        active = self.active_cond(sparse_leaf, [ir.LocalRef(v) for v in by_axis]) if sparse_leaf is not None else None
        if active is not None:
            body = [ir.If(active, body, [])]
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
                except StaticContinue:
                    continue
                except StaticBreak:
                    break
                finally:
                    self.frame.scopes.pop()
        finally:
            self.frame.loop_depth, self.frame.unroll_block = depth, unroll

    def graph_do_while(self, node):
        """`while qd.graph.do_while(flag):` the body, then again while `flag[()]` (a 0-d integer ndarray)
        is non-zero: Quadrants' do-while, its host-side form (lang/graph.py)."""
        warn_if_deprecated(node.test.func, "do_while")
        if len(node.test.args) != 1 or node.test.keywords:
            self.err(node.test, "qd.graph.do_while(flag) takes one argument, a 0-d qd.i32 ndarray")
        flag = self.value(node.test.args[0])
        if not isinstance(flag, ir.ArrayArg) or not flag.dtype.is_int:
            self.err(node.test.args[0], "qd.graph.do_while(flag) takes a 0-d integer ndarray (qd.ndarray(qd.i32, "
                                        "shape=())) that the loop body updates")
        body = self.runtime_loop_body(node.body)
        zero = (ir.Const(0, i32),) * max(flag.ndim, 1)
        done = ir.Compare("==", ir.Load(flag, zero), ir.Const(0, flag.dtype), u1)
        self.emit(ir.Loop(body + [ir.If(done, [ir.Break()], [])]))

    def s_Break(self, node):
        self.loop_jump(node, ir.Break(), "break")

    def s_Continue(self, node):
        if self.frame.loop_depth == 0 and self.in_parallel and len(self.frames) == 1:
            self.emit(ir.Continue())  # skips to the next index of the parallel loop
            return
        self.loop_jump(node, ir.Continue(), "continue")

    def loop_jump(self, node, stmt, word):
        if self.frame.loop_depth < 0 and len(self.out) == self.frame.unroll_block:
            # `if qd.static(i == 2): break` in a qd.static loop: stop unrolling here (continue: next item)
            raise StaticBreak() if word == "break" else StaticContinue()
        if self.frame.loop_depth < 0:
            self.err(node, f"You are trying to `{word}` a static `for` loop, but the `{word}` statement is inside "
                           f"a non-static `if`: '{word}' under a runtime condition cannot leave a qd.static loop (it "
                           f"is unrolled); make the condition a qd.static(...) one, or the loop a runtime range(...)",
                     QuadrantsSyntaxError)
        if self.frame.loop_depth == 0 and self.in_parallel and word == "break":
            self.err(node, "Cannot break in the outermost loop: 'break' is not allowed in the top-level parallel "
                           "loop (each of its iterations is a thread)", QuadrantsSyntaxError)
        if self.frame.loop_depth == 0:
            where = "the top-level parallel loop" if self.in_parallel else "a serial task outside a loop"
            self.err(node, f"'{word}' is not allowed in {where}")
        self.emit(stmt)


def ndrange_arity_message(dims: int, targets: int) -> str:
    return (f"Ndrange for loop with number of the loop variables not equal to the dimension of the ndrange is not "
            f"supported: the loop has {dims} dimension(s) but {targets} loop variable(s) (use qd.grouped(...) for "
            f"one index vector)")
