"""Comparisons and choices in a kernel: `a < b < c`, `a and b`, `a or b`, `a if c else b`.

`and`, `or` and `a if c else b` evaluate lazily, as in Python and Quadrants: an operand's statements
run only when its value is taken, unless they have effects (a func call, an atomic, a `:=`), which
Quadrants runs where it meets them; operands that can neither fault nor have effects keep a
branch-free select.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Any

from ... import intrinsics as I
from .... import ir
from ....ir.errors import QdCompileError, QuadrantsSyntaxError, QuadrantsTypeError
from ....ir.dtypes import i32, u1, promote
from ...func import BoundFunc, Func
from ..values import CMPOPS, Py, Vec, broadcast, cast, is_number, truthy
from ..base import LoweringBase


class LogicLowering(LoweringBase):
    """`v_Compare`, `v_BoolOp`, `v_IfExp`."""

    def v_Compare(self, node):
        for op in node.ops:  # Python's identity and membership tests are compile-time only, as in Quadrants
            if isinstance(op, (ast.Is, ast.IsNot)):
                self.err(node, f'Operator "{"is" if isinstance(op, ast.Is) else "is not"}" in Quadrants scope is not '
                               f"supported. (write qd.static(a is None) for a compile-time test)", QuadrantsSyntaxError)
            if isinstance(op, (ast.In, ast.NotIn)):
                self.err(node, f'"{type(op).__name__}" is only supported inside `qd.static`. (write '
                               f"qd.static(a in (...)) for a compile-time test)", QuadrantsSyntaxError)
        result: Any = None
        left = self.value(node.left)
        if isinstance(left, Py) and (not is_number(left) or any(type(op) not in CMPOPS for op in node.ops)):
            return self.static_compare(node, left)
        for op, right_node in zip(node.ops, node.comparators):
            opname = CMPOPS.get(type(op))
            if opname is None:
                self.err(node, f"comparison '{type(op).__name__}' is not supported in kernels")
            right = self.value(right_node)
            if isinstance(left, Vec) or isinstance(right, Vec) or isinstance(result, Vec):
                # `a <= x <= b` of vectors: componentwise comparisons joined componentwise, as Quadrants
                # lowers a chain to `(a <= x) and (x <= b)` on each component
                step = self.vec_binop(opname, left, right, node) if isinstance(left, Vec) or isinstance(right, Vec) \
                    else cast(self.commit(self.scalar_binop(opname, left, right, node), node), i32)
                result = step if result is None else self.vec_binop_with(
                    lambda p, q: self.binop("&", cast(self.commit(p, node), i32), cast(self.commit(q, node), i32), node),
                    result if isinstance(result, Vec) else cast(result, i32), step, node, "a chained comparison")
                left = right
                continue
            c: ir.Expr
            if is_number(left) and is_number(right):
                holds = eval(f"a {opname} b", {}, {"a": left.value, "b": right.value})  # noqa: S307
                c = ir.Const(int(holds), u1)
            else:
                ea, eb = self.pair(left, right, node)
                dt = promote(ea.dtype, eb.dtype)
                c = ir.Compare(opname, cast(ea, dt), cast(eb, dt), u1)
            result = c if result is None else ir.BinOp("and", result, c, u1)
            left = right
        return result

    def static_compare(self, node, left: Py) -> Py:
        """A comparison of compile-time values that are not numbers (`if dt == qd.f32:` on a closure
        dtype, `mode == "fast"`): Python decides it, as a `qd.static(...)` would."""
        values = [left.value]
        for c in node.comparators:
            v = self.value(c)
            if not isinstance(v, Py):
                self.err(c, f"cannot compare the compile-time value {left.value!r} with a kernel value")
            values.append(v.value)
        names = [f"v{k}" for k in range(len(values))]
        text = names[0] + "".join(f" {_PY_CMPOPS[type(op)]} {n}" for op, n in zip(node.ops, names[1:]))
        try:
            return Py(bool(eval(text, {}, dict(zip(names, values)))))  # noqa: S307
        except Exception as e:  # noqa: BLE001 - reported at the user's line
            self.err(node, f"comparing compile-time values failed: {type(e).__name__}: {e}")

    def v_BoolOp(self, node):
        """`a and b` / `a or b` give an operand's value, as in Python and Quadrants (`2 and 3` is 3), and
        short-circuit as Quadrants does by default (`short_circuit_operators=True`): `b` runs only when
        `a` does not decide, so `i < n and x[i] > 0` never loads `x[n]`, and a `@qd.func` in `b` with
        side effects runs only when Python would call it. A `b` that can neither fault nor have effects
        keeps the branch-free form (a select, or `and`/`or` of two u1), which gives the same result."""
        is_and = isinstance(node.op, ast.And)
        word = "and" if is_and else "or"
        acc = self.value(node.values[0])
        for v_node in node.values[1:]:
            eager = self.effectful(v_node)
            if is_number(acc):  # decided at compile time, like Python's short circuit
                if bool(acc.value) == is_and:
                    acc = self.value(v_node)
                elif eager:  # Quadrants builds every operand: a func's statements run all the same, but
                    # its simplifier drops what is unused and has no effect before any check is added
                    # (`False and explode()` never bounds-checks explode's a[-1] under debug=True)
                    self.out.append([])
                    try:
                        self.value(v_node)
                    finally:
                        for s in _effects_only(self.out.pop()):
                            self.emit(s)
                continue
            self.out.append([])  # the statements `b` needs run only when `a` does not decide
            made = len(self.made_locals)
            try:
                v = self.value(v_node)
                vec = isinstance(acc, Vec) or isinstance(v, Vec)
                a, b = (None, None) if vec else self.pair(acc, v, node)
            finally:
                b_stmts = self.out.pop()
            if eager:  # Quadrants builds `b` before it combines: a @qd.func's statements (and an atomic's, a
                # qd.random's, a `:=`) run whether or not `a` decides; only b's value is taken lazily
                for s in b_stmts:
                    self.emit(s)
                b_stmts = []
            if vec:  # `(I < lo and v < 0) or ...` of vectors: componentwise, both sides built, as
                for s in b_stmts:  # Quadrants' logical_and/or of two tensors (games201hw implicit_mpm)
                    self.emit(s)
                acc = self.vec_binop_with(lambda x, y: self.boolop_pair(word, x, y, node), acc, v, node, word)
                continue
            assert a is not None and b is not None
            both_u1 = a.dtype.kind == "b" and b.dtype.kind == "b"
            if a.dtype.is_float or b.dtype.is_float:  # Quadrants' logical_and/or take integers only
                self.err(node, f"unsupported operand type(s) for '{'&&' if is_and else '||'}': '{a.dtype.name}' and "
                               f"'{b.dtype.name}' (write `x != 0` for a float operand of '{word}')", QuadrantsTypeError)
            temps = {id(loc) for loc in self.made_locals[made:]}
            if _pure(b) and all(isinstance(s, ir.Assign) and id(s.local) in temps and _pure(s.value)
                                for s in b_stmts):
                # nothing to skip (at most pure temporaries of `b`, e.g. a nested and/or, `x ** 2`):
                # the branch-free form is equivalent, and stays what it always was
                for s in b_stmts:
                    self.emit(s)
                if both_u1:
                    acc = ir.BinOp(word, a, b, u1)
                    continue
                dt = promote(a.dtype, b.dtype)
                first = ir.LocalRef(self.new_local("boolop", dt, cast(a, dt)))
                then, other = (cast(b, dt), first) if is_and else (first, cast(b, dt))
                acc = ir.Select(truthy(first), then, other, dt)
                continue
            # Quadrants' lowering (frontend_ir.cpp, logical_and/or): result = a; if result [not]: result = b
            dt = u1 if both_u1 else promote(a.dtype, b.dtype)
            res = self.new_local("boolop", dt, cast(a, dt))  # a u1 result lives in an i32 local
            ref = ir.LocalRef(res)
            run_b = b_stmts + [ir.Assign(res, cast(b, res.dtype))]
            self.emit(ir.If(truthy(ref), run_b, []) if is_and else ir.If(truthy(ref), [], run_b))
            acc = truthy(ref) if both_u1 else ref
        return acc

    def effectful(self, node) -> bool:
        """Whether `node` calls a @qd.func, an atomic or qd.random, or assigns (`:=`): Quadrants' front end
        builds such an operand's statements where it meets it, so they run even where `and` / `or` /
        `a if c else b` take another operand's value (only plain expressions are evaluated lazily)."""
        for n in ast.walk(node):
            if isinstance(n, ast.NamedExpr):
                return True
            if not isinstance(n, ast.Call) or not isinstance(n.func, (ast.Name, ast.Attribute)):
                continue
            self.out.append([])
            try:
                f = self.value(n.func)
            except QdCompileError:
                continue
            finally:
                self.out.pop()
            f = getattr(f, "value", None)
            if isinstance(f, (Func, BoundFunc)) or (isinstance(f, I.Intrinsic) and f.kind in ("atomic", "random")):
                return True
        return False

    def boolop_pair(self, word: str, x, y, node) -> ir.Expr:
        """One component of a vector `and`/`or`: two u1 combine; integers give an operand's value."""
        a, b = self.pair(x, y, node)
        if a.dtype.is_float or b.dtype.is_float:
            self.err(node, f"'{word}' of vectors needs integer or comparison components, got {a.dtype!r} and "
                           f"{b.dtype!r}", QuadrantsTypeError)
        if a.dtype.kind == "b" and b.dtype.kind == "b":
            return ir.BinOp(word, a, b, u1)
        dt = promote(a.dtype, b.dtype)
        first = ir.LocalRef(self.new_local("boolop", dt, cast(a, dt)))
        then, other = (cast(b, dt), first) if word == "and" else (first, cast(b, dt))
        return ir.Select(truthy(first), then, other, dt)

    def v_IfExp(self, node):
        """`a if c else b` evaluates only the chosen side, as in Python and Quadrants (`make_ifte`), so
        `x[i] if i < n else 0` never loads `x[n]`; two sides that can neither fault nor have effects
        keep the branch-free select."""
        c = self.value(node.test)
        if is_number(c):  # Quadrants builds both sides first (the test's being static or not), then the
            # chosen side again for its value: both are checked, and a @qd.func's statements in them run (the
            # chosen side's twice: `f() if qd.static(True) else g()` calls f twice and g once there)
            built = []
            for side in (node.body, node.orelse):
                eager = self.effectful(side)
                if not eager:
                    self.out.append([])
                try:
                    built.append(self.value(side))
                finally:
                    if not eager:
                        self.out.pop()
            if any(isinstance(v, Vec) for v in built) and not (
                    all(isinstance(v, Vec) for v in built) and built[0].shape == built[1].shape) and \
                    not any(is_number(v) for v in built):  # Quadrants selects between tensor sides first
                self.err(node, "Cannot broadcast tensor to tensor: the two sides of `a if qd.static(c) else b` are "
                               "vectors of different shapes", QuadrantsTypeError)
            return self.value(node.body if c.value else node.orelse)
        if isinstance(c, Vec):
            self.err(node.test, 'a vector condition in `a if c else b` is ambiguous. Please use "qd.select" instead.',
                     QuadrantsSyntaxError)
        cond = truthy(self.commit(c, node))
        made = len(self.made_locals)
        sides = []
        for side in (node.body, node.orelse):
            self.out.append([])
            try:
                v = self.value(side)
            finally:
                stmts = self.out.pop()
            if self.effectful(side):  # as in `a and b`: a func's statements run on either branch in Quadrants
                for st in stmts:
                    self.emit(st)
                stmts = []
            sides.append((v, stmts))
        (va, a_stmts), (vb, b_stmts) = sides
        if isinstance(va, Vec) or isinstance(vb, Vec):
            return self.ifexp_vec(cond, va, a_stmts, vb, b_stmts, node)
        a, b = self.pair(va, vb, node)
        dt = promote(a.dtype, b.dtype)
        temps = {id(loc) for loc in self.made_locals[made:]}
        if _pure(a) and _pure(b) and all(isinstance(st, ir.Assign) and id(st.local) in temps and _pure(st.value)
                                         for st in a_stmts + b_stmts):
            for st in a_stmts + b_stmts:
                self.emit(st)
            return ir.Select(cond, cast(a, dt), cast(b, dt), dt)
        res = self.new_local("ifexp", dt)  # a u1 result lives in an i32 local
        self.emit(ir.If(cond, a_stmts + [ir.Assign(res, cast(a, res.dtype))],
                        b_stmts + [ir.Assign(res, cast(b, res.dtype))]))
        return truthy(ir.LocalRef(res)) if dt.kind == "b" else ir.LocalRef(res)

    def ifexp_vec(self, cond, va, a_stmts, vb, b_stmts, node):
        """`v if c else 0` with a vector side: each component chosen by the scalar `c`, only the
        chosen side evaluated (a scalar side broadcasts)."""
        shape = (va if isinstance(va, Vec) else vb).shape
        n = len((va if isinstance(va, Vec) else vb).items)
        for v in (va, vb):
            if isinstance(v, Vec) and len(v.items) != n:
                self.err(node, "Cannot broadcast tensor to tensor: the two sides of `a if c else b` are vectors "
                               "of different sizes", QuadrantsTypeError)
        branches = []
        results: list = []
        for v, stmts in ((va, a_stmts), (vb, b_stmts)):
            self.out.append(stmts)
            try:
                items = [self.commit(x, node) for x in (v.items if isinstance(v, Vec) else broadcast(v, n))]
            finally:
                self.out.pop()
            branches.append((items, stmts))
        for k in range(n):
            dt = promote(branches[0][0][k].dtype, branches[1][0][k].dtype)
            results.append(self.new_local("ifexp", dt))
        for items, stmts in branches:
            stmts += [ir.Assign(r, cast(x, r.dtype)) for r, x in zip(results, items)]
        self.emit(ir.If(cond, branches[0][1], branches[1][1]))
        return Vec([ir.LocalRef(r) for r in results], shape)


# Expressions that can neither fault nor have side effects (loads can fault out of bounds, atomics and
# inlined calls have effects); integer division and modulo fault on a zero (or -1 overflow) divisor.
_PURE = (ir.Const, ir.ScalarArg, ir.Shape, ir.LocalRef, ir.BinOp, ir.UnOp, ir.Compare, ir.Cast, ir.Select,
         ir.MathCall, ir.SimtIndex)


_PY_CMPOPS = {**CMPOPS, ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def _effects_only(stmts: list) -> list:
    """`stmts` without the assignments of effect-free values (loads included) to locals nothing left
    reads, and without blocks left holding nothing but their return: what Quadrants' dead-code
    elimination drops of an operand whose value is discarded, before its debug checks are added."""
    def droppable(s, read) -> bool:
        return isinstance(s, ir.Assign) and id(s.local) not in read and all(
            isinstance(n, _PURE + (ir.Load,)) or not isinstance(n, ir.Expr) for n in ir.walk(s.value))

    def prune(body: list, read: set) -> list:
        out = []
        for s in body:
            if droppable(s, read):
                continue
            if isinstance(s, ir.Block):
                inner = prune(list(s.body), read)
                if all(isinstance(x, ir.Return) for x in inner):
                    continue
                s = dataclasses.replace(s, body=inner)
            out.append(s)
        return out

    keep = list(stmts)
    while True:
        read = {id(n.local) for n in ir.walk(keep) if isinstance(n, ir.LocalRef)}
        pruned = prune(keep, read)
        if len(list(ir.walk(pruned))) == len(list(ir.walk(keep))):
            return pruned
        keep = pruned


def _pure(e: ir.Expr) -> bool:
    for n in ir.walk(e):
        if not isinstance(n, _PURE):
            return False
        if isinstance(n, ir.BinOp) and n.op in ("//", "%", "rdiv", "rmod") and n.dtype.is_int and \
                not (isinstance(n.rhs, ir.Const) and n.rhs.value not in (0, -1)):
            return False
    return True
