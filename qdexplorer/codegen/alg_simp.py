"""Quadrants' fast-math algebraic simplification, on a task's IR before codegen.

Applied to host (CPU) tasks only for now (task_module._build): Quadrants simplifies so on every backend,
but the CUDA side of this pass has not yet run on a GPU.

Under fast math (Quadrants' default) Quadrants' `alg_simp` pass (quadrants/transforms/alg_simp.cpp)
folds, before LLVM sees the kernel, float expressions that LLVM itself keeps (its fast-math flags
there are `ninf nsz reassoc afn`, no `nnan`, so LLVM folds neither `x * 0` nor `x - x`):

- `a * 0`, `0 * a` -> 0                    (optimize_multiplication, fast_math)
- `a - a` -> 0                             (visit(BinaryOpStmt), fast_math)
- `a / a` -> 1                             (optimize_division, fast_math)
- `a == a`, `a <= a`, `a >= a` -> 1 and `a < a`, `a > a` -> 0   (comparisons, fast_math; not `a != a`:
  ours keeps it true for NaN, the NaN test, where Quadrants' ordered `!=` is false for NaN anyway)
- `a / c` -> `a * (1 / c)` for a float constant c != 0 (optimize_division, fast_math; codegen did
  this alone before, expressions.py `reciprocal`; here the product takes part in the other rules)

and, with them, the rules it applies whatever the setting, whose results only matter here because
the terms they drop change the sums LLVM reassociates: `a * 1`, `1 * a`, `a / 1` -> a; `a + 0`,
`0 + a`, `a - 0` -> a; `2 * a`, `a * 2` -> `a + a`; and Quadrants' constant folding of the float
operations on constants these leave (`0 * 0.05`).

"The same value" is Quadrants' `irpass::analysis::same_value`: one statement after its CSE. Ours
models where Quadrants merges statements:
- a pure operation of the same operands (its CSE);
- a local assigned once, in this block or one around it and not since (store-to-load forwarding of
  locals, control_flow_graph.cpp): its value; a local assigned in a branch or a loop, a plain read;
- two loads of one element of one global array in the same block (statement list) with no store,
  atomic or out-of-line call touching that array between them, nested statements included
  (simplify.cpp, BasicBlockSimplify::visit(GlobalLoadStmt)); a load inside an `if` or a loop body
  is not merged with one outside it.
Anything else (random numbers, atomics, reads of locals Quadrants does not forward) is a value of
its own, so the model only ever folds less than Quadrants, never more.

Also, as Quadrants' simplification runs before LLVM:
- binary_op_simplify (binary_op_simplify.cpp, before alg_simp in each round): a constant left operand
  of + or * goes right, and under fast math `(a op1 c1) op2 c2` is `a op1 (c1 op2' c2)` (both ops in
  {+, -} or both in {*, /}), the constants folded; not for a vector operation's components
  (ir.BinOp.vec), one tensor statement there, rearranged only after alg_simp once scalarized;
  also through a forwarded local (`x = (h - r) / c1; x * c2` is `(h - r) / (c1 / c2)`: Quadrants
  forwards before alg_simp makes the division a product), the local's operand re-read where it
  is read only where it has the same value there (Simplifier.forwardable, peek);
- a literal `x * 0` is folded in the first round, before loads merge: x's loads are gone;
- on the host, loads Quadrants merges and math calls its CSE makes one (a second `qd.sin(x)`) are one
  value at the first one's place in ours too (Load.reuse, MathCall.reuse): LLVM ranks a sum's terms by
  where their loads and calls are, so the place decides the order it sums them in;
- an inlined `@qd.real_func` (ir.Block.real) is a call there: no known values inside, no merging across.
Folds keep what the dropped operands do besides their value (atomics, reused loads; ir.Seq).

Only with fast math on, and after atomic demotion (as in Quadrants, which simplifies again after
demote_atomics); with fast math off nothing here runs.
"""
from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from ..ir import nodes as ir

_NP = {32: np.float32, 64: np.float64, 16: np.float16}
_SAME_TRUE = {"==", "<=", ">="}
# `a != a` is not folded: ours keeps `x != x` true for NaN (the NaN test; tests/lang/test_difftest_findings.py),
# where Quadrants' ordered `!=` is false for NaN with or without fast math
_SAME_FALSE = {"<", ">"}
_IMPURE_CALLS = {"clock"}


def alg_simp(task: ir.Task, merge_loads: bool = True) -> ir.Task:
    """The task with Quadrants' fast-math simplifications applied (the same object if none applies).
    `merge_loads`: make Quadrants' merged loads one load (Load.reuse), where LLVM reassociates float
    sums by where their loads are (the host's fast math); CUDA's fast math reassociates nothing."""
    first = _Simplifier(task, mark_uses=True)
    first.block(task.body)
    # again, marking the loads that are one (the same keys)
    s = _Simplifier(task, merged=first.hits if merge_loads else frozenset(), mark_uses=merge_loads)
    body = s.block(task.body)
    if not s.changed:
        return task
    return dataclasses.replace(task, body=body)


def _const_key(e: ir.Const):
    v = e.value
    if isinstance(v, float):
        return (e.dtype.name, "f", v.hex() if not math.isnan(v) else "nan")
    return (e.dtype.name, "i", int(v))


def _literal(e, memo: dict):
    """The value Quadrants' first simplification round gives a float expression from its literals
    alone (constant folding; `x * 0`, `x * 1`, `x + 0`, `x - 0`, `x / 1` of literals), None where that
    needs more (a load, a local, two operands being one value)."""
    hit = memo.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    v = None
    t = type(e)
    if t is ir.Const:
        v = e.value if not isinstance(e.value, bool) else int(e.value)
    elif t is ir.Cast and e.dtype.is_float and e.dtype.bits in _NP:
        x = _literal(e.operand, memo)
        v = None if x is None else float(_NP[e.dtype.bits](x))
    elif t is ir.UnOp and e.op == "neg" and e.dtype.is_float:
        x = _literal(e.operand, memo)
        v = None if x is None else -x
    elif t is ir.BinOp and e.dtype.is_float and e.dtype.bits in _NP and e.op in ("+", "-", "*", "/"):
        x, y = _literal(e.lhs, memo), _literal(e.rhs, memo)
        f = _NP[e.dtype.bits]
        if x is not None and y is not None:
            with np.errstate(all="ignore"):
                r = {"+": lambda: f(x) + f(y), "-": lambda: f(x) - f(y), "*": lambda: f(x) * f(y),
                     "/": lambda: f(x) / f(y)}[e.op]()
            v = float(r) if np.isfinite(r) else None
        elif e.op == "*" and (x == 0 or y == 0) and (x is not None or y is not None):
            v = 0.0
        elif e.op == "*":
            v = x if y == 1 else y if x == 1 else None
        elif e.op == "+":
            v = x if y == 0 else y if x == 0 else None
        elif e.op in ("-", "/"):
            v = x if y == (0 if e.op == "-" else 1) else None
    memo[id(e)] = (e, v)
    return v


# (op1, op2) of `(a op1 c1) op2 c2` -> op2' of `a op1 (c1 op2' c2)` (binary_op_simplify.cpp,
# can_rearrange_associative)
_REARRANGE = {("+", "+"): "+", ("+", "-"): "-", ("-", "+"): "-", ("-", "-"): "+",
              ("*", "*"): "*", ("*", "/"): "/", ("/", "*"): "/", ("/", "/"): "*"}


def _val(e):
    """What an expression's value is, through the Seq nodes this pass leaves."""
    while isinstance(e, ir.Seq):
        e = e.items[e.pick]
    return e


def _const(e):
    v = _val(e)
    return v if isinstance(v, ir.Const) else None


def _is_float_const(e, value) -> bool:
    e = _val(e)
    return isinstance(e, ir.Const) and e.dtype.is_float and e.value == value


def _fconst(value, dt) -> ir.Const:
    return ir.Const(float(_NP[dt.bits](value)), dt)


class _Simplifier:
    def __init__(self, task: ir.Task, merged: frozenset | set = frozenset(), mark_uses: bool = False):
        self.n = itertools.count()
        self.intern: dict = {}     # (operation, operand value numbers...) -> its value number
        self.hits: set = set()     # keys of loads a later load in the same block merged with
        self.merged = merged       # ... found by a first run: mark those loads (Load.reuse)
        self.calls: dict = {}      # the visible math calls (CSE): key -> its number
        self.mark_uses = mark_uses
        self.known: dict = {}      # Local -> (value key, the Const it holds or None, forwardable(value))
        self.loads: dict = {}      # this block's loads: (array name, index keys) -> value key
        self.stable: dict = {}     # Local -> key: loop counters, read-only in the loop body
        assigned = _assigned(task.body)
        self.loop_vars = {id(v) for v in task.loop_vars if v not in assigned}   # one value per iteration
        self.may_alias = set(task.may_alias)
        self.changed = False
        self.dead = 0              # inside an operand a literal `* 0` drops
        self.lit: dict = {}        # id(expr) -> _literal(expr)
        self.quotients: dict = {}  # id(a * (1 / c)) -> (it, a / c): the division alg_simp made it (forwardable)

    def fresh(self):
        return next(self.n)

    def K(self, *parts) -> int:
        """The value number of an operation of value numbers (hash-consed: a key stays one int, where
        nested tuples grew with every operation above them and hashing them took minutes)."""
        k = self.intern.get(parts)
        if k is None:
            k = self.intern[parts] = next(self.n)
        return k

    # ---- statements ------------------------------------------------------------------------

    def block(self, stmts: list) -> list:
        """A statement list: a block of its own for global-load merging; the calls before it stay
        visible in it (CSE), its own calls not after it."""
        saved, saved_calls = self.loads, self.calls
        self.loads, self.calls = {}, dict(saved_calls)
        try:
            return self.stmts(stmts)
        finally:
            self.loads, self.calls = saved, saved_calls

    def stmts(self, stmts: list) -> list:
        return [self.stmt(s) for s in stmts]

    def forget(self, locals_: set):
        for lv in locals_:
            self.known.pop(lv, None)
            self.stable.pop(lv, None)

    def invalidate(self, array):
        name = array.name
        alias = name in self.may_alias
        for k in [k for k in self.loads if k[0] == name or (alias and k[0] in self.may_alias)]:
            del self.loads[k]

    def stores_in(self, node):
        """What a statement (and what it nests) does to global loads: invalidate the arrays it writes."""
        for n in ir.walk(node):
            if isinstance(n, (ir.Store, ir.AtomicRMW)):
                self.invalidate(n.array)
            elif isinstance(n, ir.Call):
                self.loads.clear()

    def stmt(self, s):
        t = type(s)
        if t is ir.Assign:
            v, key = self.expr(s.value)
            self.stable.pop(s.local, None)
            self.known[s.local] = (key, _const(v), self.forwardable(v))
            return s if v is s.value else self._changed(ir.Assign(s.local, v))
        if t is ir.Store:
            idx = self.exprs(s.indices)
            v, _ = self.expr(s.value)
            self.invalidate(s.array)
            if v is s.value and idx is s.indices:
                return s
            return self._changed(dataclasses.replace(s, indices=idx, value=v))
        if t is ir.ExprStmt:
            v, _ = self.expr(s.value)
            return s if v is s.value else self._changed(ir.ExprStmt(v))
        if t is ir.Print:
            parts = tuple(self.expr(p)[0] if isinstance(p, ir.Expr) else p for p in s.parts)
            if all(a is b for a, b in zip(parts, s.parts)):
                return s
            return self._changed(dataclasses.replace(s, parts=parts))
        if t is ir.If:
            cond, _ = self.expr(s.cond)
            assigned = _assigned([s.then, s.orelse])
            saved = dict(self.known)
            then = self.block(s.then)
            self.known = dict(saved)
            orelse = self.block(s.orelse)
            self.known = saved
            self.forget(assigned)
            self.stores_in([s.then, s.orelse])
            if cond is s.cond and _same(then, s.then) and _same(orelse, s.orelse):
                return s
            return self._changed(ir.If(cond, then, orelse))
        if t is ir.Loop:
            in_body = _assigned(s.body)
            counters = _assigned(s.step) - in_body
            self.forget(in_body | counters)
            saved = dict(self.known)
            for lv in counters:
                self.stable[lv] = self.fresh()
            body = self.block(s.body)
            for lv in counters:
                self.stable.pop(lv, None)
            self.known = dict(saved)
            step = self.block(s.step)
            self.known = saved
            self.forget(in_body | counters)
            self.stores_in([s.body, s.step])
            if _same(body, s.body) and _same(step, s.step):
                return s
            return self._changed(dataclasses.replace(s, body=body, step=step))
        if t is ir.Block and s.real:
            # Quadrants calls a real_func: its body starts with no known values (its parameters are
            # arguments) and no loads to merge with; the caller's loads merge with none after the call
            saved_known, saved_loads, saved_stable, saved_calls = self.known, self.loads, self.stable, self.calls
            self.known, self.loads, self.stable, self.calls = {}, {}, {}, {}
            body = self.stmts(s.body)
            self.known, self.loads, self.stable, self.calls = saved_known, {}, saved_stable, saved_calls
            self.forget(_assigned(s.body))
            return s if _same(body, s.body) else self._changed(dataclasses.replace(s, body=body))
        if t is ir.Block:
            if _returns(s.body[:-1]) or (s.body and not isinstance(s.body[-1], ir.Return) and _returns(s.body[-1:])):
                # an early return: the rest runs on a condition; as a branch
                assigned = _assigned(s.body)
                saved = dict(self.known)
                body = self.block(s.body)
                self.known = saved
                self.forget(assigned)
                self.stores_in(s.body)
                self.loads.clear()
            else:
                body = self.stmts(s.body)   # an inlined qd.func: the same block, as Quadrants inlines it
            return s if _same(body, s.body) else self._changed(dataclasses.replace(s, body=body))
        if t is ir.FuncDef:
            saved_known, saved_loads, saved_stable, saved_calls = self.known, self.loads, self.stable, self.calls
            self.known, self.loads, self.stable, self.calls = {}, {}, {}, {}
            body = self.stmts(s.body)
            self.known, self.loads, self.stable, self.calls = saved_known, saved_loads, saved_stable, saved_calls
            return s if _same(body, s.body) else self._changed(dataclasses.replace(s, body=body))
        if t is ir.Call:
            args = self.exprs(s.args)
            self.loads.clear()
            self.forget(set(s.outs))
            return s if args is s.args else self._changed(dataclasses.replace(s, args=args))
        # Break, Continue, Barrier, Return and anything else: untouched, but what they nest is seen
        if t is ir.Barrier:
            self.loads.clear()
        return s

    def _changed(self, s):
        self.changed = True
        return s

    # ---- expressions -----------------------------------------------------------------------

    def exprs(self, es: tuple) -> tuple:
        out = tuple(self.expr(e)[0] for e in es)
        return es if all(a is b for a, b in zip(out, es)) else out

    def expr(self, e):
        """(the simplified expression, its value key: equal keys are Quadrants' same_value)."""
        t = type(e)
        if t is ir.Const:
            return e, self.K("c", *_const_key(e))
        if t is ir.ScalarArg:
            return e, self.K("a", e.name)
        if t is ir.Shape:
            return e, self.K("s", e.array.name, e.axis)
        if t is ir.SimtIndex:
            return e, self.K("t", e.what)
        if t is ir.LocalRef:
            lv = e.local
            if id(lv) in self.loop_vars:
                return e, self.K("i", id(lv))
            st = self.stable.get(lv)
            if st is not None:
                return e, st
            k = self.known.get(lv)
            if k is None:
                return e, self.fresh()
            key, const = k[0], k[1]
            if const is not None and const.dtype == lv.dtype:
                self.changed = True
                return const, key
            return e, key
        if t is ir.Load:
            parts = [self.expr(i) for i in e.indices]
            idx = tuple(p[0] for p in parts)
            new = e if all(a is b for a, b in zip(idx, e.indices)) else dataclasses.replace(e, indices=idx)
            if not isinstance(e.array, ir.ArrayArg) or self.dead:
                return new, self.fresh()
            tk = (e.array.name, tuple(p[1] for p in parts))
            key = self.loads.get(tk)
            if key is None:
                key = self.loads[tk] = self.fresh()
                mark = ("def", key) if key in self.merged else ()
            else:
                self.hits.add(key)
                mark = ("use", key) if self.mark_uses else ()
            if mark:
                self.changed = True
                new = dataclasses.replace(new, reuse=mark)
            return new, key
        if t is ir.AtomicRMW:
            idx = self.exprs(e.indices)
            v, _ = self.expr(e.value)
            exp = self.expr(e.expected)[0] if e.expected is not None else None
            self.invalidate(e.array)
            if idx is e.indices and v is e.value and exp is e.expected:
                return e, self.fresh()
            return dataclasses.replace(e, indices=idx, value=v, expected=exp), self.fresh()
        if t is ir.BinOp:
            return self.binop(e)
        if t is ir.Compare:
            (a, ka), (b, kb) = self.expr(e.lhs), self.expr(e.rhs)
            if a.dtype.is_float and ka == kb and e.op in _SAME_TRUE | _SAME_FALSE:
                c = ir.Const(e.op in _SAME_TRUE, e.dtype)
                self.changed = True
                return _keep_effects(c, (a, b)), self.K("c", *_const_key(c))
            new = e if a is e.lhs and b is e.rhs else ir.Compare(e.op, a, b, e.dtype)
            return new, self.K("cmp", e.op, ka, kb)
        if t is ir.UnOp:
            a, ka = self.expr(e.operand)
            if e.op == "neg" and e.dtype.is_float and _const(a) is not None and e.dtype.bits in _NP:
                c = _fconst(-_const(a).value, e.dtype)
                self.changed = True
                return _keep_effects(c, (a,)), self.K("c", *_const_key(c))
            new = e if a is e.operand else ir.UnOp(e.op, a, e.dtype)
            return new, self.K("u", e.op, e.dtype.name, ka)
        if t is ir.Cast:
            a, ka = self.expr(e.operand)
            ac = _const(a)
            if ac is not None and e.dtype.is_float and e.dtype.bits in _NP and ac.dtype.kind in "iufb" \
                    and math.isfinite(ac.value):
                c = _fconst(ac.value, e.dtype)   # Quadrants folds the cast of a constant
                self.changed = True
                return _keep_effects(c, (a,)), self.K("c", *_const_key(c))
            new = e if a is e.operand else ir.Cast(a, e.dtype)
            return new, self.K("cast", e.dtype.name, ka)
        if t is ir.Select:
            (c, kc), (a, ka), (b, kb) = self.expr(e.cond), self.expr(e.a), self.expr(e.b)
            new = e if c is e.cond and a is e.a and b is e.b else ir.Select(c, a, b, e.dtype)
            return new, self.K("sel", e.dtype.name, kc, ka, kb)
        if t is ir.MathCall:
            parts = [self.expr(x) for x in e.args]
            args = tuple(p[0] for p in parts)
            new = e if all(a is b for a, b in zip(args, e.args)) else ir.MathCall(e.fn, args, e.dtype)
            if e.fn in _IMPURE_CALLS:
                return new, self.fresh()
            key = self.K("m", e.fn, e.dtype.name, *(p[1] for p in parts))
            if self.dead or not self.mark_uses:
                return new, key
            cid = self.calls.get(key)
            if cid is None:
                cid = self.calls[key] = next(self.n)
                mark = ("def", cid) if cid in self.merged else ()
            else:
                self.hits.add(cid)
                mark = ("use", cid)
            if mark:
                self.changed = True
                new = dataclasses.replace(new, reuse=mark)
            return new, key
        return e, self.fresh()   # an expression kind this pass does not know: a value of its own

    def rearrange(self, e, scalarized: bool = False):
        """Quadrants' binary_op_simplify (quadrants/transforms/binary_op_simplify.cpp), which runs before
        its constant folding and alg_simp: a constant left operand of + or * goes right; and under fast
        math `(a op1 c1) op2 c2` is `a op1 (c1 op2' c2)` for op1, op2 both in {+, -} or both in {*, /},
        the constants folded in the type (`(a * dt) / m` is `a * (dt / m)`, one division of the
        constants, where LLVM would multiply by the rounded 1 / m)."""
        if type(e) is not ir.BinOp or not e.dtype.is_float or e.dtype.bits not in (32, 64) \
                or e.op not in ("+", "-", "*", "/"):
            return e
        if not scalarized and _tensor(e):
            return e   # a tensor statement: rearranged only once scalarized, after alg_simp (binop)
        lit = self.lit
        lhs, rhs = e.lhs, e.rhs
        if e.op in ("+", "*") and _literal(lhs, lit) is not None and _literal(rhs, lit) is None:
            lhs, rhs = rhs, lhs
        c2 = _literal(rhs, lit)
        if c2 is not None and type(lhs) is ir.LocalRef:
            fwd = self.forwarded(lhs, e)
            if fwd is not None:
                new = self.rearrange(ir.BinOp(e.op, fwd, rhs, e.dtype), scalarized)
                if type(new) is not ir.BinOp or new.lhs is not fwd:   # rearranged: x's operands, constants folded
                    return new
        if c2 is not None and type(lhs) is ir.BinOp and lhs.dtype == e.dtype:
            inner = self.rearrange(lhs, scalarized)
            if inner is not lhs:
                self.changed = True
            lhs = inner
            c1 = _literal(lhs.rhs, lit) if type(lhs) is ir.BinOp else None
            new = _REARRANGE.get((lhs.op, e.op)) if c1 is not None else None
            if new is not None and _literal(lhs.lhs, lit) is None:
                f = _NP[e.dtype.bits]
                with np.errstate(all="ignore"):
                    c = {"+": lambda: f(c1) + f(c2), "-": lambda: f(c1) - f(c2), "*": lambda: f(c1) * f(c2),
                         "/": lambda: f(c1) / f(c2)}[new]()
                if np.isfinite(c):
                    self.changed = True
                    return self.rearrange(ir.BinOp(lhs.op, lhs.lhs, _fconst(c, e.dtype), e.dtype), scalarized)
        if lhs is e.lhs and rhs is e.rhs:
            return e
        self.changed = True
        return dataclasses.replace(e, lhs=lhs, rhs=rhs)

    def forwardable(self, v):
        """For a local assigned `v` (simplified): (its value as binary_op_simplify sees it, the value
        of that one's left operand) where that is a scalar float `a op c` the pass can rearrange once
        Quadrants forwards the local to its reads, else None. Quadrants forwards before alg_simp makes
        a division by a constant a product: `q = r[i] / 7; q * 3` is `r[i] / (7 / 3)` there, then
        `r[i] * (1 / (7 / 3))`, not `r[i] * ((1 / 7) * 3)`; a, one statement there, is read again
        where the local is, so it must have that value there (peek)."""
        v = self.quotients.get(id(v), (None, v))[1]
        if type(v) is not ir.BinOp or v.op not in ("+", "-", "*", "/") or not v.dtype.is_float or _tensor(v) \
                or _literal(v.rhs, self.lit) is None or _literal(v.lhs, self.lit) is not None:
            return None
        key = self.peek(v.lhs)
        return None if key is None else (v, key)

    def peek(self, e):
        """The value number of a pure expression of constants, arguments, locals and loads as it reads
        now, without numbering anything new (None: not such an expression, or a value not known):
        equal at the assignment and at a read, the expression re-read there is the same value."""
        t = type(e)
        if t is ir.Const:
            return self.K("c", *_const_key(e))
        if t is ir.ScalarArg:
            return self.K("a", e.name)
        if t is ir.LocalRef:
            lv = e.local
            if id(lv) in self.loop_vars:
                return self.K("i", id(lv))
            if lv in self.stable:
                return self.stable[lv]
            k = self.known.get(lv)
            return None if k is None else k[0]
        if t is ir.Load:
            if not isinstance(e.array, ir.ArrayArg):
                return None
            idx = [self.peek(i) for i in e.indices]
            if any(k is None for k in idx):
                return None
            return self.loads.get((e.array.name, tuple(idx)))
        if t in (ir.BinOp, ir.UnOp, ir.Cast):
            parts = [self.peek(x) for x in ((e.lhs, e.rhs) if t is ir.BinOp else (e.operand,))]
            if any(k is None for k in parts):
                return None
            return self.K("peek", t.__name__, getattr(e, "op", ""), e.dtype.name, *parts)
        return None

    def forwarded(self, ref: ir.LocalRef, e):
        """The value of the local `ref` reads where Quadrants forwards it and `e` (`ref op c`) can take
        its constant into the value's (forwardable), else None."""
        k = self.known.get(ref.local)
        if k is None or k[2] is None:
            return None
        v, key = k[2]
        if v.dtype != e.dtype or (v.op, e.op) not in _REARRANGE or self.peek(v.lhs) != key:
            return None
        return v

    def binop(self, e: ir.BinOp):
        # Quadrants simplifies a vector operation as one tensor statement, which binary_op_simplify
        # leaves as it is: its constants are rearranged only after alg_simp, once scalarized
        # (`3.0 * v / 7.0` is v * (3 * (1 / 7)) there, where a scalar's (x * 3) / 7 is x * (3 / 7))
        tensor = _tensor(e)
        e = self.rearrange(e)
        dt, op = e.dtype, e.op
        if op == "*" and dt.is_float and (_literal(e.lhs, self.lit) == 0 or _literal(e.rhs, self.lit) == 0):
            # `x * 0` of a literal zero: Quadrants folds it in its first simplification round, before it
            # merges loads, so x's loads are gone, not the first of a group (dead: no merging)
            self.dead += 1
            try:
                (a, ka), (b, kb) = self.expr(e.lhs), self.expr(e.rhs)
            finally:
                self.dead -= 1
        else:
            (a, ka), (b, kb) = self.expr(e.lhs), self.expr(e.rhs)
        if dt.is_float and dt.bits in _NP and a.dtype == dt and b.dtype == dt:
            r = self.float_rules(op, a, ka, b, kb, dt)
            if r is not None:
                self.changed = True
                res = self.rearrange(r[0], True) if tensor else r[0]
                return _keep_effects(res, (a, b)), r[1]
        new = e if a is e.lhs and b is e.rhs else dataclasses.replace(e, lhs=a, rhs=b)
        if tensor:
            new = self.rearrange(new, True)
        return new, self.K("b", op, dt.name, ka, kb)

    def float_rules(self, op, a, ka, b, kb, dt):
        ca, cb = _const(a) is not None, _const(b) is not None
        if ca and cb and op in ("+", "-", "*", "/"):   # Quadrants' constant folding, in the type
            x, y = _NP[dt.bits](_const(a).value), _NP[dt.bits](_const(b).value)
            with np.errstate(all="ignore"):
                v = {"+": x + y, "-": x - y, "*": x * y, "/": x / y}[op]
            if np.isfinite(v):
                c = _fconst(v, dt)
                return c, self.K("c", *_const_key(c))
        if op == "*":
            if _is_float_const(a, 1):
                return b, kb
            if _is_float_const(b, 1):
                return a, ka
            if _is_float_const(a, 0) or _is_float_const(b, 0):
                c = _fconst(0.0, dt)
                return c, self.K("c", *_const_key(c))
            if _is_float_const(a, 2) or _is_float_const(b, 2):
                x, kx = (b, kb) if _is_float_const(a, 2) else (a, ka)
                if not _cheap(x):   # ours is a tree: `x` would be computed twice (Quadrants' is one statement)
                    return None
                return ir.BinOp("+", x, x, dt), self.K("b", "+", dt.name, kx, kx)
            return None
        if op == "/":
            if _is_float_const(b, 1):
                return a, ka
            if ka == kb:
                c = _fconst(1.0, dt)
                return c, self.K("c", *_const_key(c))
            if cb and _const(b).value != 0 and dt.bits in (32, 64):
                r = _fconst(_NP[dt.bits](1) / _NP[dt.bits](_const(b).value), dt)
                rk = self.K("c", *_const_key(r))
                again = self.float_rules("*", a, ka, r, rk, dt)
                if again is not None:
                    return again
                product = ir.BinOp("*", a, r, dt)
                self.quotients[id(product)] = (product, ir.BinOp("/", a, b, dt))
                return product, self.K("b", "*", dt.name, ka, rk)
            return None
        if op in ("+", "-"):
            if _is_float_const(b, 0):
                return a, ka
            if op == "+" and _is_float_const(a, 0):
                return b, kb
            if op == "-" and ka == kb:
                c = _fconst(0.0, dt)
                return c, self.K("c", *_const_key(c))
        return None


def _keep_effects(result, operands):
    """`result` in place of an operation on `operands`, still doing what they do besides their value:
    their atomics, and their loads whose value a later load reuses (Quadrants keeps that statement
    where it was; LLVM ranks a sum's operands by where their loads are)."""
    items: list = []
    pick = -1
    inside = {id(n) for n in ir.walk(result)} if not isinstance(result, ir.Const) else set()
    for x in operands:
        if x is result:
            pick = len(items)
            items.append(x)
        elif id(x) not in inside:   # an operand the result still computes (a / c -> a * (1 / c)) does its own
            _effects(x, items, result)
    if pick < 0:
        if not items:
            return result
        pick = len(items)
        items.append(result)
    elif len(items) == 1:
        return result
    return ir.Seq(tuple(items), pick)


def _effects(e, out: list, result):
    if e is result or not isinstance(e, ir.Expr):
        return
    if isinstance(e, ir.AtomicRMW) or (isinstance(e, (ir.Load, ir.MathCall)) and e.reuse and e.reuse[0] == "def"):
        if not any(x is e for x in out):
            out.append(e)
        return
    if isinstance(e, ir.Seq):
        for k, x in enumerate(e.items):
            if k == e.pick:
                _effects(x, out, result)
            else:
                out.append(x)
        return
    for f in dataclasses.fields(e):  # type: ignore[arg-type]  # every Expr is a dataclass
        v = getattr(e, f.name)
        if isinstance(v, tuple):
            for x in v:
                _effects(x, out, result)
        else:
            _effects(v, out, result)


def _tensor(e) -> bool:
    """Whether Quadrants has `e` (a BinOp) as, or on, one component of a tensor operation."""
    return e.vec or (type(e.lhs) is ir.BinOp and e.lhs.vec)


def _cheap(e) -> bool:
    """Whether computing `e` twice is the same as once: no atomics, no calls (LLVM merges the rest)."""
    return not any(isinstance(n, (ir.AtomicRMW, ir.MathCall)) for n in ir.walk(e))


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _assigned(node) -> set:
    out = set()
    for n in ir.walk(node):
        if isinstance(n, ir.Assign):
            out.add(n.local)
        elif isinstance(n, ir.Call):
            out.update(n.outs)
    return out


def _returns(node) -> bool:
    return any(isinstance(n, ir.Return) for n in ir.walk(node))
