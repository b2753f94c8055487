"""Straight-line statements: expressions, assignments (plain, annotated, tuple, augmented) and `if`.

Augmented updates of array elements in a parallel loop are atomic (Quadrants' rule).
"""
from __future__ import annotations

import ast

from .. import intrinsics as I
from .. import ir
from ..errors import QuadrantsSyntaxError
from ..types import as_dtype, i32, u1
from .values import BINOPS, Py, ShapeTuple, cast, is_number, truthy

_AUG_ATOMIC = {ast.Add: "add", ast.Sub: "sub"}


class StatementLowering:
    """Mixin for `TaskBuilder`: lowers simple statements into the current block."""

    def s_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # docstring or comment string
        v = self.value(node.value)
        if isinstance(v, ir.Expr):
            self.emit(ir.ExprStmt(v))

    def s_Pass(self, node):
        pass

    def s_Assign(self, node):
        if len(node.targets) > 1:  # a = b = 7: evaluate once, assign left to right, as Python does
            v = self.value(node.value)
            if isinstance(v, ir.Expr) and not isinstance(v, ir.Const):
                v = ir.LocalRef(self.new_local("chain", v.dtype, v))
            for t in node.targets:
                self.assign(t, v, node)
            return
        target = node.targets[0]
        if isinstance(target, (ast.Tuple, ast.List)):
            vals = self.value(node.value)
            if isinstance(vals, Py) and isinstance(vals.value, tuple):
                vals = [Py(v) for v in vals.value]
            if not isinstance(vals, list) or len(vals) != len(target.elts):
                self.err(node, "tuple assignment needs a tuple of the same length on the right")
            temps = [self.commit(v, node) if not isinstance(v, Py) or is_number(v) else v for v in vals]
            temps = [ir.LocalRef(self.new_local("tup", t.dtype, t)) if isinstance(t, ir.Expr) else t
                     for t in temps]
            for t_node, v in zip(target.elts, temps):
                self.assign(t_node, v, node)
            return
        self.assign(target, self.value(node.value), node)

    def s_AnnAssign(self, node):
        dt = as_dtype(self.eval_static(node.annotation))
        if dt is None or not isinstance(node.target, ast.Name):
            self.err(node, "annotated assignment needs a name and a qd scalar type (x: qd.f32 = ...)")
        if node.value is None:
            self.err(node, "annotated declaration needs an initial value")
        existing = self.visible(node.target.id)
        self.refuse_kernel_arg(node.target, existing)
        if existing is None and self.is_gtemp(node.target.id):
            return self.store_gtemp(node.target.id, self.value(node.value), node, dt)
        if isinstance(existing, ir.Local):
            if existing.dtype != dt:
                self.err(node, f"'{node.target.id}' is already declared as {existing.dtype!r}; a variable keeps "
                               f"its type (use another name for the {dt!r} value)", QuadrantsSyntaxError)
            return self.assign(node.target, self.value(node.value), node)
        loc = self.new_local(node.target.id, dt, self.commit(self.value(node.value), node, like=dt))
        self.frame.scopes[-1][node.target.id] = loc

    def assign(self, target, v, node):
        if isinstance(target, ast.Name):
            existing = self.visible(target.id)
            self.refuse_kernel_arg(target, existing)
            if existing is None and self.is_gtemp(target.id):
                return self.store_gtemp(target.id, v, node)
            if isinstance(existing, ir.Local):
                self.emit(ir.Assign(existing, cast(self.commit(v, node, like=existing.dtype), existing.dtype)))
                return
            if isinstance(v, (ir.ArrayArg, ir.SharedArray, ShapeTuple)) or (isinstance(v, Py) and not is_number(v)):
                self.frame.scopes[-1][target.id] = v
                return
            e = self.commit(v, node)
            self.frame.scopes[-1][target.id] = self.new_local(target.id, e.dtype, e)
            return
        if isinstance(target, ast.Subscript):
            arr = self.value(target.value)
            if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, "only ndarray and shared-array elements can be assigned")
            idx = self.indices(arr, target.slice)
            self.emit(ir.Store(arr, idx, cast(self.commit(v, node, like=arr.dtype), arr.dtype)))
            return
        self.err(target, f"cannot assign to '{type(target).__name__}' in a kernel")

    def is_gtemp(self, name) -> bool:
        return len(self.frames) == 1 and name in self.kscope.gtemp_names

    def store_gtemp(self, name, v, node, dt=None):
        """A kernel-scope local that another task reads lives in a global temporary."""
        e = self.commit(v, node, like=dt)
        arr = self.kscope.gtemp(name, dt or e.dtype)
        if dt is not None and arr.dtype != dt:
            self.err(node, f"'{name}' is already declared as {arr.dtype!r}", QuadrantsSyntaxError)
        self.emit(ir.Store(arr, (ir.Const(0, i32),), cast(e, arr.dtype)))

    def visible(self, name):
        """What `name` is bound to in the current function's scopes, or None."""
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def refuse_kernel_arg(self, target, existing):
        if len(self.frames) == 1 and isinstance(existing, (ir.ScalarArg, ir.ArrayArg)) and \
                self.frames[0].scopes[0].get(target.id) is existing:
            self.err(target, f"kernel argument '{target.id}' cannot be assigned (Quadrants passes arguments "
                             f"read-only); copy it into a local first: {target.id}_ = {target.id}",
                     QuadrantsSyntaxError)

    def s_AugAssign(self, node):
        target = node.target
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, "unsupported augmented assignment")
        gtemp = isinstance(target, ast.Name) and self.visible(target.id) is None and self.is_gtemp(target.id)
        if isinstance(target, ast.Subscript) or gtemp:
            if gtemp:
                arr = self.kscope.gtemp(target.id)
                if arr is None:
                    self.err(target, f"kernel-scope variable '{target.id}' is updated before it is assigned")
                idx = (ir.Const(0, i32),)
            else:
                arr = self.value(target.value)
                if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                    self.err(target, "only ndarray and shared-array elements can be updated")
                idx = self.indices(arr, target.slice)
            rhs = self.value(node.value)
            if self.in_parallel and type(node.op) in _AUG_ATOMIC:
                val = cast(self.commit(rhs, node, like=arr.dtype), arr.dtype)
                self.emit(ir.ExprStmt(ir.AtomicRMW(_AUG_ATOMIC[type(node.op)], arr, idx, val)))
                return
            new = self.binop(op, ir.Load(arr, idx), rhs, node)
            self.emit(ir.Store(arr, idx, cast(new, arr.dtype)))
            return
        if isinstance(target, ast.Name):
            self.refuse_kernel_arg(target, self.visible(target.id))
            cur = self.lookup(target.id, target)
            if not isinstance(cur, ir.LocalRef):
                self.err(target, f"'{target.id}' is not a kernel variable that can be updated")
            new = self.binop(op, cur, self.value(node.value), node)
            self.emit(ir.Assign(cur.local, cast(new, cur.local.dtype)))
            return
        self.err(target, "unsupported augmented-assignment target")

    def s_If(self, node):
        test = node.test
        if isinstance(test, ast.Call) and isinstance(self.value(test.func), Py) and \
                self.value(test.func).value is I.static:
            cond = self.eval_static(self.one_arg(test))
            for s in (node.body if cond else node.orelse):
                self.stmt(s)
            return
        c = self.value(test)
        if is_number(c):
            c = ir.Const(int(bool(c.value)), u1)
        cond = truthy(self.commit(c, test))
        then, orelse = self.block(node.body), self.block(node.orelse)
        self.emit(ir.If(cond, then, orelse))

    def s_Assert(self, node):
        self.err(node, "assert is not supported in kernels")
