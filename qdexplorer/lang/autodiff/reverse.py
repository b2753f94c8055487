"""Reverse-mode autodiff: a kernel's tasks turned into the tasks of its adjoint kernel (`k.grad`).

Quadrants builds `k.grad` at compile time, as a kernel like any other; so does this module, on the
task IR, so the adjoint tasks go through the same pipeline (LLVM IR, PTX, the project tree).

Each task of the forward kernel gives one adjoint task over the same loop. Its body first replays
the forward computation of the iteration (locals only: no global store is repeated, so a global
read sees the value the forward launch left, which Quadrants' global data access rule makes the
value it read), then walks the recorded statements backwards applying the chain rule:
an adjoint local per value, `x.grad[i] += ...` (atomically) for each global read, and for each
global store `y[i] = v` the adjoint of `v` is `y.grad[i]`, which is then zeroed, as Quadrants
does (so `a = x; b = 2 a` in one kernel leaves `a.grad` at 0). The tasks run in reverse order.

Locals are renamed to single-assignment versions during the replay, so the primal value each
reverse step needs is still there. A dynamic inner loop (`for j in range(n)`) has no such history
(Quadrants keeps one on its "adstack"); it is supported when every float it carries from one
iteration to the next is only accumulated (`s += f(...)`, the linear case Quadrants' docs say
needs no adstack): the reverse then re-runs the loop, replaying each iteration's locals before
its reverse step. Anything else is refused with file:line and what to do.
"""
from __future__ import annotations

import dataclasses
from typing import NoReturn

from ... import ir
from ...ir.errors import QdCompileError
from ..field import memory_order
from ...ir.dtypes import DType, i32, u1
from . import derivatives
from .derivatives import binop as _b, cast as _cast, const as _c, math as _m, sign as _sgn

RANDOM_KEY = "random_key__"
GRAD = "__grad"
ADSTACK_FLAG = "adstack__"  # the grad kernel's overflow flag: 1 when a push found its adstack full
_INERT = (ir.Const, ir.ScalarArg, ir.Shape, ir.SimtIndex)
_ZERO_DERIV = derivatives.ZERO_DERIVATIVE


class AutodiffError(QdCompileError, RuntimeError):
    """A kernel form `kernel.grad()` cannot differentiate (also a RuntimeError, as Quadrants')."""


def grad_name(name: str) -> str:
    return name + GRAD


def map_expr(e, fn, memo: dict | None = None):
    """`e` with every LocalRef replaced by `fn(local)`'s local (expressions are immutable). An
    operation node used twice (the `d` of `d * d`) stays one node: reverse mode takes it for one
    Quadrants statement."""
    if isinstance(e, ir.LocalRef):
        return dataclasses.replace(e, local=fn(e.local)) if e.bcast else ir.LocalRef(fn(e.local))
    if not isinstance(e, ir.Expr) or isinstance(e, _INERT):
        return e
    memo = {} if memo is None else memo
    hit = memo.get(id(e))
    if hit is not None:
        return hit[1]
    changes = {}
    for f in getattr(e, "__dataclass_fields__"):  # noqa: B009 - every Expr is a dataclass
        v = getattr(e, f)
        if isinstance(v, ir.Expr):
            nv = map_expr(v, fn, memo)
        elif isinstance(v, tuple):
            nv = tuple(map_expr(x, fn, memo) if isinstance(x, ir.Expr) else x for x in v)
        else:
            continue
        if nv is not v:
            changes[f] = nv
    out = dataclasses.replace(e, **changes) if changes else e  # type: ignore[type-var]
    memo[id(e)] = (e, out)  # `e` kept alive: its id is not reused while the memo lives
    return out


def _refs(node) -> set:
    return {n.local for n in ir.walk(node) if isinstance(n, ir.LocalRef)}


def _assign_counts(stmts) -> dict:
    out: dict = {}
    for n in ir.walk(stmts):
        if isinstance(n, ir.Assign):
            out[n.local] = out.get(n.local, 0) + 1
    return out


def _assigned(stmts) -> list:
    out: list = []
    for n in ir.walk(stmts):
        if isinstance(n, ir.Assign) and n.local not in out:
            out.append(n.local)
    return out


# ---- the transformation -------------------------------------------------------------------

class _Reverse:
    def __init__(self, task: ir.Task, grads: dict, adstack: int = 0, adaptive: bool = False):
        self.task, self.grads = task, grads
        self.adstack = adstack  # entries per adstack (qd.init(ad_stack_size)); 0: Quadrants' adstack is off
        self.adaptive = adaptive  # ad_stack_size=0: a loop of a constant trip count gets a stack of that size
        self.stacks = 0
        self.depth = 1 if task.type == "range_for" else 0  # loops around the current point
        self.adj: dict = {}    # value version -> its adjoint local
        self.mut: dict = {}    # original local -> its mutable copy, inside a dynamic loop carrying it
        self.accum: set = set()
        self.n = 0
        # versions of the locals assigned once (Quadrants forwards such a variable's only value to
        # its reads before differentiating, so a vector built from it holds that one statement)
        self.once = {L for L, c in _assign_counts(task.body).items() if c == 1 and not L.reassigned}
        self.forwarded: set = set()
        self.pending: dict = {}  # MatrixInit group -> {component: (read, its adjoint's temp)}

    # -- errors
    def where(self, node=None) -> tuple:
        for n in ir.walk(node) if node is not None else ():
            w = getattr(n, "where", "")
            if w and ":" in w:
                f, _, line = w.rpartition(":")
                if line.isdigit():
                    return f, int(line)
        return self.task.file, self.task.lines[0]

    def error(self, node, msg: str) -> NoReturn:
        f, line = self.where(node)
        raise AutodiffError(f"kernel '{self.task.kernel}' cannot be differentiated (kernel.grad / qd.ad.Tape): "
                            f"{msg}", f, line)

    def fresh(self, base: str, dt: DType) -> ir.Local:
        self.n += 1
        return ir.Local(f"{base.split('.')[0]}.ad{self.n}", dt)

    def new_version(self, L: ir.Local, level: list) -> ir.Local:
        v = self.fresh(L.name, L.dtype)
        if L.dtype.is_float:
            self.adj[v] = self.fresh(L.name + "_adj", L.dtype)
            level.append(v)
        return v

    # -- forward replay, recording what the reverse pass needs
    def rn(self, e, cur: dict):
        for n in ir.walk(e):
            if isinstance(n, ir.AtomicRMW):
                self.error(e, "an atomic operation's return value is used; differentiated kernels may only "
                              "use atomics as statements (qd.atomic_add(loss[None], v) or loss[None] += v)")
            if isinstance(n, ir.Load) and isinstance(n.array, ir.SharedArray):
                self.error(e, "block-shared arrays (qd.simt.block.SharedArray) are not differentiable")
        return map_expr(e, lambda L: cur.get(L, L))

    def forward(self, stmts, cur: dict, level: list, live_after: set) -> tuple[list, list]:
        fwd: list = []
        recs: list = []
        for k, s in enumerate(stmts):
            if isinstance(s, ir.Block):
                body = self.strip_returns(s.body, s.label)
                f, r = self.forward(body + list(stmts[k + 1:]), cur, level, live_after)
                return fwd + f, recs + r
            after = live_after | _refs(list(stmts[k + 1:]))
            if isinstance(s, ir.Assign):
                self.assign(s, cur, level, fwd, recs)
            elif isinstance(s, ir.Store):
                recs.append(("store", s.array, tuple(self.rn(i, cur) for i in s.indices), self.rn(s.value, cur), s))
            elif isinstance(s, ir.ExprStmt):
                v = s.value
                if isinstance(v, ir.AtomicRMW):
                    recs.append(("atomic", v.op, v.array, tuple(self.rn(i, cur) for i in v.indices),
                                 self.rn(v.value, cur), v))
            elif isinstance(s, ir.If):
                self.branch(s, cur, level, fwd, recs, after)
            elif isinstance(s, ir.Loop):
                if self.adstack and self.needs_stack(s, after):
                    self.loop_adstack(s, cur, level, fwd, recs, after, _trip_count(s, stmts[:k]))
                else:
                    self.loop(s, cur, level, fwd, recs, after)
            elif isinstance(s, ir.Print):
                continue
            elif isinstance(s, (ir.Break, ir.Continue)):
                self.error(None, f"'{type(s).__name__.lower()}' inside a loop body: only a loop's own exit test "
                                 f"is supported; restructure the loop with an if around its body")
            elif isinstance(s, ir.Return):
                self.error(None, "an early 'return' inside a qd.func: return once, at the end of the function")
            elif isinstance(s, (ir.FuncDef, ir.Call)):
                self.error(None, "a recursive @qd.real_func is not differentiable (its depth is known only at "
                                 "run time); compute its result in a kernel without needs_grad")
            else:
                self.error(None, f"{type(s).__name__} statements (block barriers) are not differentiable")
        return fwd, recs

    def strip_returns(self, body: list, label: str) -> list:
        """A qd.func body with its returns in tail position removed (they only end the block)."""
        out = list(body)
        if out and isinstance(out[-1], ir.Return) and out[-1].label == label:
            out.pop()
        elif out and isinstance(out[-1], ir.If):
            last = out[-1]
            out[-1] = ir.If(last.cond, self.strip_returns(last.then, label), self.strip_returns(last.orelse, label))
        if any(isinstance(n, ir.Return) and n.label == label for n in ir.walk(out)):
            self.error(None, "an early 'return' inside a qd.func: return once, at the end of the function")
        return out

    def assign(self, s: ir.Assign, cur, level, fwd, recs):
        L = s.local
        M = self.mut.get(L)
        if M is None:
            v = self.new_version(L, level)
            if L in self.once:
                self.forwarded.add(v)
            e = self.rn(s.value, cur)
            fwd.append(ir.Assign(v, e))
            cur[L] = v
            recs.append(("assign", v, e))
        elif M in self.accum:
            op, rest = _accumulation(s, L)
            fwd.append(ir.Assign(M, self.rn(s.value, {**cur, L: M})))  # as the forward computed it
            recs.append(("accum", M, self.rn(rest, cur), op))
        else:  # an integer carried by the loop: mutable, read through per-iteration snapshots
            fwd.append(ir.Assign(M, self.rn(s.value, cur)))
            snap = self.fresh(L.name, L.dtype)
            fwd.append(ir.Assign(snap, ir.LocalRef(M)))
            cur[L] = snap

    def branch(self, s: ir.If, cur, level, fwd, recs, after):
        c = self.fresh("cond", s.cond.dtype)
        fwd.append(ir.Assign(c, self.rn(s.cond, cur)))
        ct, ce = dict(cur), dict(cur)
        tf, tr = self.forward(s.then, ct, level, after)
        ef, er = self.forward(s.orelse, ce, level, after)
        for L in [L for L in dict.fromkeys(list(ct) + list(ce)) if ct.get(L) is not cur.get(L)
                  or ce.get(L) is not cur.get(L)]:
            merged = self.new_version(L, level)
            for side, f, r in ((ct, tf, tr), (ce, ef, er)):
                val = ir.LocalRef(side[L]) if L in side else _c(0, L.dtype)
                f.append(ir.Assign(merged, val))
                r.append(("assign", merged, val))
            cur[L] = merged
        fwd.append(ir.If(ir.LocalRef(c), tf, ef))
        recs.append(("if", c, tr, er))

    def loop(self, s: ir.Loop, cur, level, fwd, recs, after):
        if s.where and self.depth > 0 and not self.adstack:  # Quadrants' AST check: a range loop in a loop
            self.error(s, "Cannot use non static range in Backwards mode: a dynamic range(...) loop inside another "
                          "loop needs Quadrants' adstack (qd.init(ad_stack_experimental_enabled=True)), or unroll "
                          "it with qd.static(range(...))")
        self.depth += 1
        try:
            self.loop_accumulating(s, cur, level, fwd, recs, after)
        finally:
            self.depth -= 1

    def needs_stack(self, s: ir.Loop, after: set) -> bool:
        """Whether a float the loop carries is used other than by accumulation (s += f(...)): the
        accumulating loops re-run forwards in the reverse pass, and need no adstack."""
        head, body, carried = _carried(s, after)
        if any(L.dtype.is_float and L not in self.mut and not _is_accumulator(s, L) for L in carried):
            return True
        return self.stores_gradient(s) and _counter(s, [L for L in carried if not L.dtype.is_float]) is None

    def stores_gradient(self, s: ir.Loop) -> bool:
        """Whether the loop stores into an array with a gradient: the store's adjoint is read and
        zeroed, so the reverse must visit the iterations in reverse order (an overwritten value
        gets no gradient; `out[i] = out[i - 1] + x` passes it down the chain)."""
        return any(isinstance(n, ir.Store) and n.array.name in self.grads for n in ir.walk([s.body, s.step]))

    def loop_accumulating(self, s: ir.Loop, cur, level, fwd, recs, after):
        head, body, carried = _carried(s, after)
        new = []
        for L in carried:
            if L.dtype.is_float and L not in self.mut:
                _check_accumulator(self, s, L)
            if L not in self.mut:
                M = self.fresh(L.name, L.dtype)
                init = ir.LocalRef(cur[L]) if L in cur else _c(0, L.dtype)
                fwd.append(ir.Assign(M, init))
                self.mut[L] = M
                new.append(L)
                if L.dtype.is_float:
                    self.accum.add(M)
                    self.adj[M] = self.fresh(L.name + "_adj", L.dtype)
                    level.append(M)
                    recs.append(("assign", M, init))
        reinit = [ir.Assign(self.mut[L], ir.LocalRef(cur[L]) if L in cur else _c(0, L.dtype))
                  for L in carried if self.mut[L] not in self.accum]
        inner: list = []
        cb = dict(cur)
        pre: list = []
        self.snapshot_carried(carried, cb, pre)
        hdr = [ir.If(self.rn(h.cond, cb), [ir.Break()], []) for h in head if isinstance(h, ir.If)]
        bf, br = self.forward(body, cb, inner, after | _refs(head) | _refs(s.step))
        sf, sr = self.forward(list(s.step), cb, inner, after)
        if any(r[0] != "assign" or r[1].dtype.is_float for r in sr):
            self.error(s.step, "a loop step that computes floats")
        fbody = pre + hdr + bf
        descending = None
        if self.stores_gradient(s):  # the reverse visits a range loop's indices last first
            counter = _counter(s, [L for L in carried if self.mut[L] not in self.accum])
            if counter is None:
                self.error(s, "a dynamic loop that stores into a field or array with a gradient and carries "
                              "other values than its index from one iteration to the next: its reverse needs "
                              "Quadrants' adstack (qd.init(ad_stack_experimental_enabled=True))")
            var, step = counter
            trips = self.fresh("trips", i32)
            first = self.fresh(var.name, var.dtype)
            fwd.append(ir.Assign(trips, _c(0, i32)))
            inc = [ir.Assign(trips, ir.BinOp("+", ir.LocalRef(trips), _c(1, i32), i32))]
            fwd.append(ir.Loop(_pushes(pre + hdr + inc + bf, lowered=False), sf))
            descending = (trips, first, self.mut[var], step)
        else:
            fwd.append(ir.Loop(_pushes(fbody, lowered=False), sf))
        recs.append(("loop", reinit, fbody, sf, br, inner, descending))
        self.snapshot_carried(carried, cur, fwd)
        for L in new:
            del self.mut[L]

    def snapshot_carried(self, carried, cur: dict, out: list):
        """Points `cur` at the values the loop's carried locals hold now: an accumulator's own local,
        which the reverse pass updates in place, or a fresh copy (appended to `out`) of any other's,
        so that a later iteration's assignment does not change what was read here."""
        for L in carried:
            M = self.mut[L]
            if M in self.accum:
                cur[L] = M
            else:
                snap = self.fresh(L.name, L.dtype)
                out.append(ir.Assign(snap, ir.LocalRef(M)))
                cur[L] = snap

    def loop_adstack(self, s: ir.Loop, cur, level, fwd, recs, after, trips: int | None = None):
        """A dynamic loop with Quadrants' adstack: each iteration pushes the values its locals carry in
        (and, through the reverse of an enclosing loop, replays with its own pushes); the reverse runs
        the iterations last first, popping those values, replaying the iteration's locals from them
        and applying its chain rule. The carried floats' adjoints pass from iteration to iteration."""
        head, body, carried = _carried(s, after)
        iteration = body + list(s.step)  # no `continue` is differentiable: the step ends every iteration
        carried = [L for L in carried if self.mut.get(L) not in self.accum]  # an enclosing loop's accumulators:
        # theirs; an integer an enclosing accumulating loop carries too is this loop's while it runs (its
        # value at each iteration's start is pushed), and goes back to that loop's mutable after
        outer = {L: self.mut.pop(L) for L in carried if L in self.mut}
        self.stacks += 1
        k = self.stacks
        # Quadrants' adaptive size (ad_stack_size=0) where the trip count is a constant: exactly that
        cap = max(1, trips) if self.adaptive and trips is not None and trips <= _MAX_CONST_STACK else self.adstack
        sp = self.fresh(f"adstack{k}_sp", i32)
        fwd.append(ir.Assign(sp, _c(0, i32)))
        muts, stacks = {}, {}
        for j, L in enumerate(carried):  # one stack per carried local (two may share a name: a vector's)
            M = muts[L] = self.fresh(L.name, L.dtype)
            init = ir.LocalRef(cur[L]) if L in cur else _c(0, L.dtype)
            fwd.append(ir.Assign(M, init))
            stacks[L] = ir.LocalArray(f"adstack{k}_{j}_{L.name.split('.')[0]}", L.dtype, cap)
            if L.dtype.is_float:
                self.adj[M] = self.fresh(L.name + "_adj", L.dtype)
                level.append(M)
                recs.append(("assign", M, init))
        top = {**cur, **{L: M for L, M in muts.items()}}
        hdr: list = [ir.If(self.rn(h.cond, top), [ir.Break()], []) for h in head if isinstance(h, ir.If)]
        size = _c(cap, i32)
        full = ir.Compare(">=", ir.LocalRef(sp), size, u1)
        push = _Push([ir.If(full, [ir.Store(_FLAG, (_c(0, i32),), _c(1, i32))],
                            [ir.Store(stacks[L], (ir.LocalRef(sp),), ir.LocalRef(muts[L])) for L in carried]),
                      ir.Assign(sp, ir.BinOp("+", ir.LocalRef(sp), _c(1, i32), i32))])
        inner: list = []
        cb = dict(cur)
        pre, pre_recs = [], []
        for L in carried:
            v0 = self.new_version(L, inner)
            pre.append(ir.Assign(v0, ir.LocalRef(muts[L])))
            pre_recs.append(("assign", v0, ir.LocalRef(muts[L])))
            cb[L] = v0
        bf, br = self.forward(iteration, cb, inner, after | _refs(head) | _refs(iteration))
        post = [ir.Assign(muts[L], ir.LocalRef(cb[L])) for L in carried]
        post_recs = [("carry", muts[L], cb[L]) for L in carried if L.dtype.is_float]
        replay = pre + bf + post
        fwd.append(ir.Loop(hdr + [push] + _pushes(replay, lowered=False), []))
        recs.append(("adloop", sp, [(muts[L], stacks[L]) for L in carried], replay, pre_recs + br + post_recs,
                     inner, cap))
        for L in carried:
            v = self.new_version(L, level)
            fwd.append(ir.Assign(v, ir.LocalRef(muts[L])))
            recs.append(("assign", v, ir.LocalRef(muts[L])))
            cur[L] = v
        for L, M in outer.items():
            fwd.append(ir.Assign(M, ir.LocalRef(cur[L])))
            self.mut[L] = M

    def reverse_adloop(self, r, out: list):
        _, sp, popped, replay, body_recs, inner, cap = r
        sp_ref = ir.LocalRef(sp)
        top = ir.Select(ir.Compare("<", sp_ref, _c(cap, i32), u1), sp_ref, _c(cap - 1, i32), i32)
        body: list = [ir.If(ir.Compare("<=", sp_ref, _c(0, i32), u1), [ir.Break()], []),
                      ir.Assign(sp, ir.BinOp("-", sp_ref, _c(1, i32), i32))]
        body += [ir.Assign(M, ir.Load(stack, (top,))) for M, stack in popped]
        body += replay
        body += [ir.Assign(self.adj[v], _c(0, v.dtype)) for v in inner]
        body += self.reverse(body_recs)
        out.append(ir.Loop(body, []))

    # -- the reverse pass
    def reverse(self, recs) -> list:
        out: list = []
        open_groups = set(self.pending)
        self._reverse(recs, out)
        for g in [g for g in self.pending if g not in open_groups]:  # a group not all of whose reads came
            self.flush(g, out)
        return out

    def _reverse(self, recs, out: list):
        for r in reversed(recs):
            kind = r[0]
            if kind == "assign":
                for g in [g for g, slots in self.pending.items() if any(x.local is r[1] for x, _ in slots.values())]:
                    self.flush(g, out)  # a vector's reads wait no later than the value they read
                a = self.adj.get(r[1])
                if a is not None:
                    self.backprop(r[2], ir.LocalRef(a), out)
            elif kind == "accum":
                a = ir.LocalRef(self.adj[r[1]])
                self.backprop(r[2], a if r[3] == "+" else ir.UnOp("neg", a, a.dtype), out)
            elif kind == "store":
                _, arr, idx, val, node = r
                g = self.grads.get(arr.name)
                if g is not None and val.dtype.is_float:
                    t = self.fresh("dout", val.dtype)
                    out.append(ir.Assign(t, _cast(ir.Load(g, idx), val.dtype)))
                    out.append(ir.Store(g, idx, _c(0, g.dtype)))
                    self.backprop(val, ir.LocalRef(t), out)
            elif kind == "atomic":
                _, op, arr, idx, val, node = r
                g = self.grads.get(arr.name)
                if g is None or not val.dtype.is_float:
                    continue
                if op not in ("add", "sub"):
                    self.error(node, f"atomic {op} into '{arr.name}', which has a gradient: only atomic add / sub "
                                     f"(+= / -=) are differentiable")
                d: ir.Expr = _cast(ir.Load(g, idx), val.dtype)
                self.backprop(val, d if op == "add" else ir.UnOp("neg", d, d.dtype), out)
            elif kind == "carry":  # an iteration's value leaves through the loop's carried local
                a = self.adj[r[1]]
                t = self.fresh("carry", a.dtype)
                out += [ir.Assign(t, ir.LocalRef(a)), ir.Assign(a, _c(0, a.dtype))]
                self.backprop(ir.LocalRef(r[2]), ir.LocalRef(t), out)
            elif kind == "adloop":
                self.reverse_adloop(r, out)
            elif kind == "if":
                out.append(ir.If(ir.LocalRef(r[1]), self.reverse(r[2]), self.reverse(r[3])))
            elif kind == "loop":
                _, reinit, fbody, step, body_recs, inner, descending = r
                zero = [ir.Assign(self.adj[v], _c(0, v.dtype)) for v in inner]
                out.extend(reinit)
                if descending is None:
                    out.append(ir.Loop(fbody + zero + self.reverse(body_recs), step))
                    continue
                trips, first, M, stride = descending
                dt = M.dtype
                out.append(ir.Assign(first, ir.LocalRef(M)))
                at = [ir.If(ir.Compare("<=", ir.LocalRef(trips), _c(0, i32), u1), [ir.Break()], []),
                      ir.Assign(trips, ir.BinOp("-", ir.LocalRef(trips), _c(1, i32), i32)),
                      ir.Assign(M, ir.BinOp("+", ir.LocalRef(first), ir.BinOp("*", _cast(ir.LocalRef(trips), dt),
                                                                               _c(stride, dt), dt), dt))]
                out.append(ir.Loop(at + fbody + zero + self.reverse(body_recs), []))

    def backprop(self, e: ir.Expr, a: ir.Expr, out: list):
        """Add `a` times d(e)/d(each input) to the inputs' adjoints, in Quadrants' order.

        Quadrants differentiates statements in reverse program order, and an expression's statements
        are in post-order (left operand, right operand, the operation). Each statement adds its
        contributions to its operands' adjoints (left, then right), and a statement passes its own on
        when its turn comes: an operation to its operands, a read of a local variable (one statement
        per read) into that variable's adjoint, a global load (one per load) to the gradient array.
        One sub-expression used twice (the `d` of `d * d` in a norm) is one statement, whose adjoint
        sums both uses first. So this walks the expression in reverse post-order over its distinct
        operations, with every read of a variable and every load a node of its own. Float sums of
        adjoints round in that order, and gradients agree with Quadrants' to the last bit (checked
        against Quadrants' own IR after autodiff; a depth-first walk regrouped them, and a
        differentiable robot trained to a loss 0.4% off)."""
        if not e.dtype.is_float or isinstance(e, _INERT):
            return
        if isinstance(e, ir.LocalRef):
            return self.read(e, a, out)
        e = _fresh_leaves(e, {})
        order, keys = _post_order(e)
        adj: dict[int, ir.Expr] = {keys[id(e)]: a}
        for node in reversed(order):
            k = keys[id(node)]
            if k not in adj:
                continue
            if isinstance(node, ir.LocalRef):  # this read's turn: its sum into the variable's adjoint
                self.read(node, adj.pop(k), out)
                continue
            for x, c in self.contributions(node, adj.pop(k), out):
                if not x.dtype.is_float or isinstance(x, _INERT):
                    continue
                kx = keys[id(x)]
                have = adj.get(kx)
                if have is None:
                    adj[kx] = c
                else:
                    if not (isinstance(have, ir.LocalRef) and have.local.name.startswith("adjsum")):
                        t = self.fresh("adjsum", x.dtype)
                        out.append(ir.Assign(t, _cast(have, x.dtype)))
                        have = adj[kx] = ir.LocalRef(t)
                    out.append(ir.Assign(have.local, _b("+", have, c, x.dtype)))

    def read(self, x: ir.LocalRef, c: ir.Expr, out: list):
        """A read of a local passes its adjoint `c` to the variable's. A read that is the k-th element
        of a vector built from scalars (`x.bcast`: `s * v`, `qd.Vector([s, s])`), of a local that
        Quadrants forwards (assigned once), is one operand of that vector's MatrixInitStmt, whose
        adjoint Quadrants hands to its elements first to last when its turn comes; ours meets the
        components' reads last to first, so each waits in a temporary until the first one's comes."""
        if not x.bcast or x.local not in self.forwarded or self.adj.get(x.local) is None:
            return self.accumulate(x, c, out)
        g, k, first = x.bcast
        t = self.fresh("elem_adj", x.dtype)
        out.append(ir.Assign(t, _cast(c, x.dtype)))
        if k in self.pending.get(g, {}):  # the same vector's reads met again (one value used twice)
            self.flush(g, out)
        self.pending.setdefault(g, {})[k] = (x, ir.LocalRef(t))
        if k == first:
            self.flush(g, out)

    def flush(self, g, out: list):
        for _, (x, t) in sorted(self.pending.pop(g).items(), key=lambda kv: kv[0]):
            self.accumulate(x, t, out)

    def accumulate(self, x: ir.LocalRef, c: ir.Expr, out: list):
        adj = self.adj.get(x.local)
        if adj is not None:
            out.append(ir.Assign(adj, _b("+", ir.LocalRef(adj), c, adj.dtype)))

    def contributions(self, e: ir.Expr, a: ir.Expr, out: list) -> list:
        """What `e` adds to each of its operands' adjoints, given its own adjoint `a`: (operand,
        value) pairs, left operand first. Quadrants' rules (its MakeAdjoint), term for term."""
        if not e.dtype.is_float or isinstance(e, _INERT):
            return []
        if isinstance(e, ir.LocalRef):
            return [(e, a)]
        if isinstance(e, ir.Load):
            g = self.grads.get(e.array.name)
            if g is not None:
                out.append(ir.ExprStmt(ir.AtomicRMW("add", g, e.indices, _cast(a, g.dtype), e.where)))
            return []
        if isinstance(e, ir.Cast):
            return [(e.operand, _cast(a, e.operand.dtype))] if e.operand.dtype.is_float else []
        dt = e.dtype
        if not isinstance(a, (ir.LocalRef, ir.Const)):
            t = self.fresh("adj", dt)
            out.append(ir.Assign(t, _cast(a, dt)))
            a = ir.LocalRef(t)
        one = _c(1, dt)
        if isinstance(e, ir.Select):
            z = _c(0, dt)
            return [(e.a, ir.Select(e.cond, a, z, dt)), (e.b, ir.Select(e.cond, z, a, dt))]
        if isinstance(e, ir.UnOp):
            if e.op == "neg":
                return [(e.operand, ir.UnOp("neg", a, dt))]
            if e.op == "abs":  # Quadrants' d|x|/dx is sgn(x): 0 at x == 0
                return [(e.operand, _b("*", a, _sgn(e.operand, dt), dt))]
            self.error(e, f"operator '{e.op}' on a float is not differentiable")
        if isinstance(e, ir.BinOp) or (isinstance(e, ir.MathCall) and len(e.args) == 2):
            x, y = (e.lhs, e.rhs) if isinstance(e, ir.BinOp) else e.args
            op = e.op if isinstance(e, ir.BinOp) else e.fn
            return self.binop(e, op, x, y, a, dt)
        if isinstance(e, ir.MathCall):
            x = e.args[0]
            try:
                return [(x, derivatives.adjoint(e.fn, a, x, dt))] if e.fn not in _ZERO_DERIV else []
            except KeyError:
                self.error(e, f"qd.{e.fn}() is not differentiable here (differentiable: "
                              f"{', '.join(sorted(derivatives.UNARY))}, pow, atan2, min, max, + - * /)")
        self.error(e, f"{type(e).__name__} is not differentiable")

    def binop(self, e, op, x, y, a, dt) -> list:
        neg = lambda v: ir.UnOp("neg", v, dt)  # noqa: E731
        if op == "+":
            return [(x, a), (y, a)]
        if op == "-":
            return [(x, a), (y, neg(a))]
        if op == "*":
            return [(x, _b("*", a, y, dt)), (y, _b("*", a, x, dt))]
        if op == "/":
            return [(x, _b("/", a, y, dt)), (y, neg(_b("/", _b("*", a, x, dt), _b("*", y, y, dt), dt)))]
        if op in ("**", "pow"):
            # d x^y = x^(y-1) (y dx + log(x) x dy); x^(y-1) of a constant y as Quadrants' algebraic
            # simplifier leaves it after autodiff (x^0.5 is sqrt(x), x^n squarings)
            coeff = derivatives.power(x, _b("-", y, _c(1, dt), dt) if not isinstance(y, ir.Const)
                                      else _c(y.value - 1, dt), dt)
            parts = [(x, _b("*", a, _b("*", y, coeff, dt), dt))]
            if y.dtype.is_float and not isinstance(y, ir.Const):
                parts.append((y, _b("*", a, _b("*", _m("log", dt, x), _b("*", x, coeff, dt), dt), dt)))
            return parts
        if op == "fipow":  # x ** n of an integer n: n x^(n-1), with n - 1 a float as in Quadrants
            coeff = derivatives.power(x, _c(y.value - 1, dt) if isinstance(y, ir.Const)
                                      else _b("-", _cast(y, dt), _c(1, dt), dt), dt)
            return [(x, _b("*", a, _b("*", _cast(y, dt), coeff, dt), dt))]
        if op in ("min", "max"):  # Quadrants: the strict comparison; a tie gives the adjoint to the right
            pick_x = ir.Compare("<", x, y, u1) if op == "min" else ir.Compare("<", y, x, u1)
            z = _c(0, dt)
            return [(x, ir.Select(pick_x, a, z, dt)), (y, ir.Select(pick_x, z, a, dt))]
        if op == "atan2":  # atan2(y, x): the first argument is the numerator
            r2 = _b("+", _b("*", x, x, dt), _b("*", y, y, dt), dt)
            return [(x, _b("/", _b("*", a, y, dt), r2, dt)), (y, neg(_b("/", _b("*", a, x, dt), r2, dt)))]
        if op == "%":
            return [(x, a), (y, neg(_b("*", a, _m("floor", dt, _b("/", x, y, dt)), dt)))]
        if op == "rmod":  # fmod(x, y) = x - trunc(x / y) * y
            q = _b("/", x, y, dt)
            trunc = ir.Select(ir.Compare("<", q, _c(0, dt), u1), _m("ceil", dt, q), _m("floor", dt, q), dt)
            return [(x, a), (y, neg(_b("*", a, trunc, dt)))]
        if op == "//":
            return []
        self.error(e, f"operator '{op}' on floats is not differentiable")


def _post_order(root: ir.Expr) -> tuple[list, dict[int, int]]:
    """The float sub-expressions of `root` that reverse mode passes adjoints through, in post-order
    of their first occurrence, each keyed by its identity: one IR node used twice (the `d` of
    `d * d`, a vector difference squared in a norm) is one statement in Quadrants, whose adjoint sums
    both uses before passing on. Equal but distinct nodes stay apart, as Quadrants does not merge
    them before it differentiates (`x[i] * x[i]` adds to `x.grad[i]` twice). Local variables and
    constants are leaves."""
    keys: dict[int, int] = {}
    order: list = []
    stack: list = [(root, False)]
    while stack:
        n, done = stack.pop()
        if done:
            if id(n) not in keys:
                keys[id(n)] = id(n)
                if n.dtype.is_float and not isinstance(n, _INERT):
                    order.append(n)
            continue
        if id(n) in keys:
            continue
        stack.append((n, True))
        kids = [c for c in _children(n)]
        stack.extend((c, False) for c in reversed(kids))  # the left operand first in post-order
    return order, keys


def _fresh_leaves(e, memo: dict):
    """`e` with every read of a local and every global load a node of its own (a copy), while an
    operation node used twice stays one node: Quadrants makes a statement per read and per load, and
    one per operation it lowers once."""
    if isinstance(e, (ir.LocalRef, ir.Load)):
        return dataclasses.replace(e)
    if not isinstance(e, ir.Expr) or isinstance(e, _INERT) or isinstance(e, ir.AtomicRMW):
        return e
    hit = memo.get(id(e))
    if hit is not None:
        return hit
    new = ir.map_operands(e, lambda v: _fresh_leaves(v, memo))
    memo[id(e)] = new
    return new


def _children(n) -> list:
    out: list = []
    for f in dataclasses.fields(n):
        v = getattr(n, f.name)
        if isinstance(v, ir.Expr):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, ir.Expr))
    return out


_FLAG = ir.ArrayArg(ADSTACK_FLAG, i32, 1)


@dataclasses.dataclass
class _Push(ir.Stmt):
    """One iteration's push onto a loop's adstacks. The task's own forward sweep keeps only the
    pushes of loops it reverses directly; a loop nested in another pushes when the outer loop's
    reverse replays its iteration, so its stacks hold one iteration of the outer loop at a time."""
    stmts: list


def _pushes(stmts: list, lowered: bool) -> list:
    """`stmts` with every _Push in them, however deep, dropped or (`lowered`) replaced by its statements."""
    out: list = []
    for s in stmts:
        if isinstance(s, _Push):
            if lowered:
                out += s.stmts
            continue
        if isinstance(s, ir.If):
            s = ir.If(s.cond, _pushes(s.then, lowered), _pushes(s.orelse, lowered))
        elif isinstance(s, ir.Loop):
            s = ir.Loop(_pushes(s.body, lowered), _pushes(s.step, lowered), s.where)
        out.append(s)
    return out


def _read_first(head, body, step, candidates: set) -> set:
    """Locals of `candidates` that an iteration may read before assigning them (loop-carried)."""
    out: set = set(candidates & _refs(head))

    def scan(stmts, done: set) -> set:
        done = set(done)
        for s in stmts:
            if isinstance(s, ir.Assign):
                out.update((_refs(s.value) & candidates) - done)
                done.add(s.local)
            elif isinstance(s, ir.If):
                out.update((_refs(s.cond) & candidates) - done)
                done |= scan(s.then, done) & scan(s.orelse, done)
            elif isinstance(s, (ir.Loop, ir.Block)):
                scan(s.body, done)
                if isinstance(s, ir.Loop):
                    scan(s.body + s.step, done)
            else:
                out.update((_refs(s) & candidates) - done)
        return done

    scan(list(body) + list(step), set())
    return out


def _accumulation(s: ir.Assign, L: ir.Local):
    """(op, rest) of `L = L + rest` / `L = rest + L` / `L = L - rest`, or None; the sum may be
    computed in a wider type (`s += x` of an f32 `s` and an f64 `x`: casts around `L` and the sum)."""
    v = s.value
    if isinstance(v, ir.Cast) and v.operand.dtype.is_float:
        v = v.operand

    def is_l(e):
        return e == ir.LocalRef(L) or (isinstance(e, ir.Cast) and e.operand == ir.LocalRef(L))
    if isinstance(v, ir.BinOp) and v.op in ("+", "-") and L not in _refs(v.rhs) and is_l(v.lhs):
        return v.op, v.rhs
    if isinstance(v, ir.BinOp) and v.op == "+" and is_l(v.rhs) and L not in _refs(v.lhs):
        return "+", v.lhs
    return None


def _carried(s: ir.Loop, after: set) -> tuple[list, list, list]:
    """(exit tests at the top, the rest of the body, the locals one iteration hands the next or the
    code after the loop) of a dynamic loop."""
    body = list(s.body)
    head = []
    while body and isinstance(body[0], ir.If) and body[0].then == [ir.Break()] and not body[0].orelse:
        head.append(body.pop(0))
    assigned = _assigned(body + list(s.step))
    return head, body, [L for L in assigned if L in _read_first(head, body, s.step, set(assigned)) or L in after]


_MAX_CONST_STACK = 1 << 16  # a constant trip count above this takes the default size (and its overflow check)


def _trip_count(s: ir.Loop, before: list) -> int | None:
    """The trip count of `for v in range(a, b[, step])` with constant bounds: the frontend assigns `v`
    and the loop's end just before the loop, and the loop's head tests `v >= end` (`<=` stepping down)."""
    if not (s.where and s.body and isinstance(s.body[0], ir.If) and len(s.step) == 1):
        return None
    test, inc = s.body[0].cond, s.step[0]
    if not (isinstance(test, ir.Compare) and isinstance(test.lhs, ir.LocalRef) and isinstance(test.rhs, ir.LocalRef)
            and isinstance(inc, ir.Assign) and isinstance(inc.value, ir.BinOp) and isinstance(inc.value.rhs, ir.Const)):
        return None
    consts = {}
    for st in before[-2:]:
        if isinstance(st, ir.Assign) and isinstance(st.value, ir.Const):
            consts[st.local] = st.value.value
    lo, hi, step = consts.get(test.lhs.local), consts.get(test.rhs.local), int(inc.value.rhs.value)
    if lo is None or hi is None or step == 0:
        return None
    return max(0, -((int(lo) - int(hi)) // step)) if step > 0 else max(0, -((int(hi) - int(lo)) // -step))


def _counter(s: ir.Loop, carried_ints: list):
    """(index local, step) of a `for` loop (range, ndrange) whose only carried integer is its index
    (its iterations can then be revisited last first without a stack), else None."""
    if len(s.step) != 1 or not isinstance(s.step[0], ir.Assign):
        return None
    var, inc = s.step[0].local, s.step[0].value
    if not (isinstance(inc, ir.BinOp) and inc.op == "+" and inc.lhs == ir.LocalRef(var)
            and isinstance(inc.rhs, ir.Const)) or carried_ints != [var]:
        return None
    return var, int(inc.rhs.value)


def _is_accumulator(loop: ir.Loop, L: ir.Local) -> bool:
    assigns = [n for n in ir.walk([loop.body, loop.step]) if isinstance(n, ir.Assign) and n.local is L]
    reads = sum(1 for n in ir.walk([loop.body, loop.step]) if isinstance(n, ir.LocalRef) and n.local is L)
    return all(_accumulation(s, L) for s in assigns) and reads == len(assigns)


def _check_accumulator(rv: _Reverse, loop: ir.Loop, L: ir.Local):
    if _is_accumulator(loop, L):
        return
    rv.error(loop.body, f"the float local '{L.name.split('.')[0]}' carries a value from one iteration of a dynamic "
                        f"loop to the next and is used non-linearly, which needs Quadrants' adstack: turn it on "
                        f"with qd.init(ad_stack_experimental_enabled=True) (without it only accumulation, "
                        f"s += f(...), is supported in such a loop), or unroll it with qd.static(range(...))")


def _dce(stmts: list) -> list:
    """Drop assignments to locals nothing reads (the replay of values no derivative needs)."""
    while True:
        used = _refs([_strip_assign_targets(stmts)])
        out, removed = _drop(stmts, used)
        if not removed:
            return out
        stmts = out


def _strip_assign_targets(stmts):
    """The expressions and conditions read by `stmts` (an Assign's target is not a read)."""
    out = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            out.append(s.value)
        elif isinstance(s, ir.If):
            out += [s.cond, _strip_assign_targets(s.then), _strip_assign_targets(s.orelse)]
        elif isinstance(s, ir.Loop):
            out += [_strip_assign_targets(s.body), _strip_assign_targets(s.step)]
        else:
            out.append(s)
    return out


def _drop(stmts, used) -> tuple[list, bool]:
    out, removed = [], False
    for s in stmts:
        if isinstance(s, ir.Assign) and s.local not in used:
            removed = True
            continue
        if isinstance(s, ir.If):
            t, r1 = _drop(s.then, used)
            e, r2 = _drop(s.orelse, used)
            removed |= r1 or r2
            if not t and not e:
                removed = True
                continue
            s = ir.If(s.cond, t, e)
        elif isinstance(s, ir.Loop):
            b, r1 = _drop(s.body, used)
            st, r2 = _drop(s.step, used)
            removed |= r1 or r2
            if all(isinstance(x, ir.If) and x.then == [ir.Break()] for x in b) and not st:
                removed = True
                continue
            s = ir.Loop(b, st)
        out.append(s)
    return out, removed


def _params(task: ir.Task, body, extra: list) -> tuple[list, set]:
    used = {n.name for n in ir.walk([body, task.ranges]) if isinstance(n, (ir.ArrayArg, ir.ScalarArg))}
    params = [p for p in task.params if p.name in used]
    params += [ir.Param(g.name, "array", g.dtype, g.ndim) for g in extra if g.name in used]
    return params, used


def _check_cross_iteration(task: ir.Task, grads: dict):
    """Quadrants' check on the parallel loop (its validation.cpp): an iteration that reads an element of a
    field with a gradient that another iteration stores (`out[i] = out[i - 1] + x`) has an adjoint chain
    across iterations that run in parallel, which no reverse pass gives. Refused where Quadrants refuses,
    by its rule: only the loads and stores of the loop body itself (a nested loop's are the adstack's
    business), a store and a load that both index by the loop on some axis, and then on each axis the two
    indices either both free of the loop index (`out[i, 0] = out[i, 1]`, `p[t, i] = p[t - 1, i]`) or
    the same expression (`out[i] = out[i] + x`); anything else is refused (difftaichi's wave stores
    `p[t, i, j]` from `p[t - 1, i + 1, j]` in a nested loop, which Quadrants accepts)."""
    if task.type != "range_for" or len(task.loop_vars) != 1:
        return  # an ndrange's indices reach Quadrants' check through locals, which it does not follow
    dep = set(task.loop_vars)
    # a local follows the loop index where Quadrants forwards it: assigned once, in straight-line code
    # (`y2 = y - 1`); one an `if` assigns (`res = i - 1; if res < 0: res = n - 1`) it does not see through
    count: dict = {}
    for n in ir.walk(task.body):
        if isinstance(n, ir.Assign):
            count[n.local] = count.get(n.local, 0) + 1
    assigns = [n for n in _outside_loops(task.body, branches=False) if isinstance(n, ir.Assign) and count[n.local] == 1]
    grew = True
    while grew:
        grew = False
        for a in assigns:
            if a.local not in dep and _refs(a.value) & dep:
                dep.add(a.local)
                grew = True
    top = _outside_loops(task.body)
    stores = [n for n in top if isinstance(n, ir.Store) and n.array.name in grads]
    loads = [n for n in top if isinstance(n, ir.Load) and n.array.name in grads]
    by_loop = lambda idx: [bool(_refs(i) & dep) for i in idx]  # noqa: E731
    for st in stores:
        st_refs = by_loop(st.indices)
        if not any(st_refs):
            continue
        for ld in loads:
            if ld.array.name != st.array.name:
                continue
            ld_refs = by_loop(ld.indices)
            if not any(ld_refs):
                continue
            if len(ld.indices) == len(st.indices) and all(
                    sr == lr and (not sr or a == b) for a, b, sr, lr in zip(st.indices, ld.indices, st_refs, ld_refs)):
                continue
            f, _, line = (ld.where or f"{task.file}:{task.lines[0]}").rpartition(":")
            raise AutodiffError(
                f"Cross-iteration read-after-write on the `needs_grad` global field `{st.array.name}` at the "
                f"offload-level loop body is not supported in reverse-mode autodiff (kernel '{task.kernel}'): "
                f"one iteration reads what another stores, and the adjoint chain between them is not "
                f"generated. Wrap the loop in an outer for-loop in the kernel so the inner range becomes "
                f"adstack-eligible, or restructure the kernel so the offload-level loop has no global field "
                f"cross-iteration read-after-write", f, int(line) if line.isdigit() else task.lines[0])


def _outside_loops(stmts, branches: bool = True) -> list:
    """Every node of `stmts` that no nested loop holds (inlined bodies included, and an if's branches
    unless `branches` is False)."""
    out: list = []
    for s in stmts:
        if isinstance(s, ir.Loop):
            continue
        if isinstance(s, ir.If):
            out += list(ir.walk(s.cond))
            if branches:
                out += _outside_loops(s.then) + _outside_loops(s.orelse)
        elif isinstance(s, ir.Block):
            out += _outside_loops(s.body, branches)
        else:
            out += list(ir.walk(s))
    return out


def grad_task(task: ir.Task, kernel_name: str, index: int, grads: dict, implicit: dict,
              adstack: int = 0, adaptive: bool = False) -> ir.Task | None:
    """The adjoint of one task (None when nothing in it has a gradient to propagate)."""
    if task.shared:
        raise AutodiffError(f"kernel '{task.kernel}' cannot be differentiated: it uses block-shared arrays",
                            task.file, task.lines[0])
    _check_cross_iteration(task, grads)
    rv = _Reverse(task, grads, adstack, adaptive)
    level: list = []
    fwd, recs = rv.forward(list(task.body), {}, level, set())
    rev = rv.reverse(recs)
    if not rev:
        return None
    body = _dce(_pushes(fwd + [ir.Assign(rv.adj[v], _c(0, v.dtype)) for v in level] + rev, lowered=True))
    params, used = _params(task, body, list(grads.values()) + [_FLAG])
    if ADSTACK_FLAG in used:
        implicit = {**implicit, ADSTACK_FLAG: ir.ImplicitArray(ADSTACK_FLAG, "adstack", i32, (1,))}
    if RANDOM_KEY in used:
        raise AutodiffError(f"kernel '{task.kernel}' cannot be differentiated: it draws qd.random() numbers that "
                            f"its gradient depends on (RandStmt not supported in autodiff); draw them in another "
                            f"kernel into a field", task.file, task.lines[0])
    return dataclasses.replace(
        task, name=f"{task.name}_grad", kernel=kernel_name, index=index, body=body, params=params,
        fingerprint="", shared=[],
        implicit=tuple(a for a in task.implicit if a.name in used) + tuple(implicit[n] for n in used if n in implicit))


def replay_task(task: ir.Task, kernel_name: str, index: int, implicit: dict) -> ir.Task:
    """A task that recomputes the kernel-scope temporaries (`gtmp`) a forward task stored: the
    adjoint tasks read them, and each call starts them zeroed."""
    keep = {a.name for a in task.implicit if a.role == "gtmp"}

    def strip(stmts):
        out = []
        for s in stmts:
            if isinstance(s, ir.Store) and s.array.name not in keep:
                continue
            if isinstance(s, (ir.ExprStmt, ir.Print)):
                continue
            if isinstance(s, ir.If):
                s = ir.If(s.cond, strip(s.then), strip(s.orelse))
            elif isinstance(s, ir.Loop):
                s = ir.Loop(strip(s.body), strip(s.step))
            elif isinstance(s, ir.Block):
                s = ir.Block(s.label, strip(s.body), s.real)
            out.append(s)
        return out

    body = strip(task.body)
    params, used = _params(task, body, [])
    return dataclasses.replace(task, name=f"{task.name}_replay", kernel=kernel_name, index=index, body=body,
                               params=params, fingerprint="",
                               implicit=tuple(a for a in task.implicit if a.name in used))


def check_no_grad_of_grad(tasks: list, ndarrays: list):
    """Quadrants' refusal: a kernel that reads or writes `x.grad` of an ndarray argument `x` that has a
    gradient cannot be differentiated (it would need the gradient of the gradient)."""
    names = {grad_name(a) for a in ndarrays}
    for t in tasks:
        for n in ir.walk(t.body):
            if isinstance(n, (ir.Load, ir.Store, ir.AtomicRMW)) and n.array.name in names and n.array.dtype.is_float:
                f, _, line = (n.where or f"{t.file}:{t.lines[0]}").rpartition(":")
                raise AutodiffError(f"Cannot automatically differentiate through a grad tensor ('{n.array.name[:-len(GRAD)]}"
                                    f".grad' in kernel '{t.kernel}'), if you really want to do that, pass the grad "
                                    f"tensor into the kernel directly", f, int(line) if line.isdigit() else t.lines[0])


def grad_tasks(kernel_name: str, tasks: list, field_grad, arg_grads: dict, adstack: int = 0,
               adaptive: bool = False) -> list:
    """The tasks of `kernel_name` (the adjoint of the forward `tasks`): replays of the tasks that
    store kernel-scope temporaries, then each task's adjoint, last task first.

    `field_grad(uid)`: the gradient field of a field, or None; `arg_grads`: array argument name ->
    (dtype, ndim) of the gradient the caller passes as `<name>__grad`."""
    out: list = []
    for t in tasks:
        if any(isinstance(n, ir.Store) and n.array.name in {a.name for a in t.implicit if a.role == "gtmp"}
               for n in ir.walk(t.body)):
            out.append(replay_task(t, kernel_name, len(out), {}))
    for at in reversed(range(len(tasks))):
        t = tasks[at]
        if t.listgen:  # run again right before the adjoint of its struct-for (below)
            continue
        grads, implicit = {}, {}
        for a in t.implicit:
            if not a.dtype.is_float or a.name in t.stop_grad:
                continue
            if a.role == "field":
                g = field_grad(int(a.key))
                if g is None:
                    continue
                imp = ir.ImplicitArray(grad_name(a.name), "field", g.dtype, tuple(g.storage.shape), g.uid,
                                       layout=memory_order(g), runtime_shape=a.runtime_shape)
            elif a.role == "gtmp":
                imp = ir.ImplicitArray(grad_name(a.name), "gtmp", a.dtype, a.shape, f"{a.key}{GRAD}")
            else:
                continue
            implicit[imp.name] = imp
            grads[a.name] = ir.ArrayArg(imp.name, imp.dtype, len(imp.shape), layout=imp.layout)
        for p in t.params:
            if p.kind == "array" and p.name in arg_grads and p.name not in t.stop_grad:
                gdt, gnd = arg_grads[p.name]
                grads[p.name] = ir.ArrayArg(grad_name(p.name), gdt, gnd)
        lg = tasks[at - 1] if at and tasks[at - 1].listgen else None
        g = grad_task(t, kernel_name, len(out) + (lg is not None), grads, implicit, adstack, adaptive)
        if g is not None:
            if lg is not None:  # the active cells now: a later forward task may have changed them
                out.append(dataclasses.replace(lg, name=f"{lg.name}_grad", kernel=kernel_name, index=len(out),
                                               fingerprint=""))
            out.append(g)
    return out


# ---- the tape ------------------------------------------------------------------------------

TAPES: list = []  # active `qd.ad.Tape`s, innermost last; kernel calls are recorded on the innermost


def prepare(kernel):
    """A kernel is about to run: a validating tape that will record it sets its mode first (Quadrants'
    Tape.insert, which runs before the launch)."""
    if TAPES and TAPES[-1].paused == 0 and TAPES[-1].validation:
        TAPES[-1].validate(kernel)


def record(kernel, args: tuple, kwargs: dict):
    """A kernel call ran: the innermost active tape (if any, and not paused) remembers it."""
    if TAPES and TAPES[-1].paused == 0:
        TAPES[-1].insert(kernel, args, kwargs)
