"""Straight-line statements: expressions, assignments (plain, annotated, tuple, augmented) and `if`.

Augmented updates of array elements in a parallel loop are atomic (Quadrants' rule).
"""
from __future__ import annotations

import ast

from .. import intrinsics as I
from .. import ir
from ..types import as_dtype, u1
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
        if len(node.targets) != 1:
            self.err(node, "chained assignment (a = b = c) is not supported in kernels")
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
        loc = self.new_local(node.target.id, dt, self.commit(self.value(node.value), node, like=dt))
        self.frame.scopes[-1][node.target.id] = loc

    def assign(self, target, v, node):
        if isinstance(target, ast.Name):
            existing = None
            for scope in reversed(self.frame.scopes):
                if target.id in scope:
                    existing = scope[target.id]
                    break
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

    def s_AugAssign(self, node):
        target = node.target
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, "unsupported augmented assignment")
        if isinstance(target, ast.Subscript):
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
