"""Forward-mode autodiff: a kernel's tasks computing, beside each float value, its tangent (`.dual`).

Inside `with qd.ad.FwdMode(loss=..., param=..., seed=...)` a kernel runs as its forward-mode twin,
as in Quadrants: every float local gets a dual local, a load of a field that has a `.dual` also
loads the dual, and a store (or atomic add) to such a field also stores (adds) the tangent of the
value into the dual. Fields without a dual contribute a zero tangent, integers have none. Unlike
reverse mode no history is needed, so dynamic loops and branches are differentiated as written.
"""
from __future__ import annotations

import dataclasses

from ... import ir
from ..field import memory_order
from . import derivatives
from .derivatives import binop as _b, cast as _cast, const as _c, math as _m, sign as _sgn
from .reverse import AutodiffError
from ...ir.dtypes import DType, u1

DUAL = "__dual"
_ZERO = derivatives.ZERO_DERIVATIVE


def dual_name(name: str) -> str:
    return name + DUAL


class _Forward:
    def __init__(self, task: ir.Task, duals: dict):
        self.task, self.duals = task, duals   # array name -> ArrayArg of its dual
        self.dl: dict = {}                    # float local -> its dual local
        self.n = 0

    def error(self, msg: str):
        raise AutodiffError(f"kernel '{self.task.kernel}' cannot be differentiated in forward mode "
                            f"(qd.ad.FwdMode): {msg}", self.task.file, self.task.lines[0])

    def fresh(self, base: str, dt: DType) -> ir.Local:
        self.n += 1
        return ir.Local(f"{base.split('.')[0]}.fwd{self.n}", dt)

    def dual_local(self, L: ir.Local) -> ir.Local:
        if L not in self.dl:
            self.dl[L] = self.fresh(L.name + "_dual", L.dtype)
        return self.dl[L]

    # -- statements
    def stmts(self, body: list) -> list:
        out: list = []
        for s in body:
            out += self.stmt(s)
        return out

    def stmt(self, s) -> list:
        if isinstance(s, ir.Assign):
            if not s.local.dtype.is_float:
                return [s]
            t = self.tangent(s.value)
            tmp = self.fresh(s.local.name + "_t", s.local.dtype)  # the tangent from the old values
            return [ir.Assign(tmp, t), s, ir.Assign(self.dual_local(s.local), ir.LocalRef(tmp))]
        if isinstance(s, ir.Store):
            d = self.duals.get(s.array.name)
            if d is None or not s.array.dtype.is_float:
                return [s]
            tmp = self.fresh("store_t", s.array.dtype)
            return [ir.Assign(tmp, self.tangent(s.value)), s,
                    ir.Store(d, s.indices, ir.LocalRef(tmp), s.where)]
        if isinstance(s, ir.ExprStmt):
            e = s.value
            if isinstance(e, ir.AtomicRMW) and e.array.dtype.is_float and e.array.name in self.duals:
                if e.op not in ("add", "sub"):
                    self.error(f"atomic {e.op} on a field with a dual")
                tmp = self.fresh("atomic_t", e.array.dtype)
                return [ir.Assign(tmp, self.tangent(e.value)), s,
                        ir.ExprStmt(ir.AtomicRMW(e.op, self.duals[e.array.name], e.indices, ir.LocalRef(tmp),
                                                 e.where))]
            return [s]
        if isinstance(s, ir.If):
            return [ir.If(s.cond, self.stmts(s.then), self.stmts(s.orelse))]
        if isinstance(s, ir.Loop):
            return [ir.Loop(self.stmts(s.body), self.stmts(s.step))]
        if isinstance(s, ir.Block):
            return [ir.Block(s.label, self.stmts(s.body), s.real)]
        return [s]

    # -- expressions: the tangent of a float expression (a zero constant where it has none)
    def tangent(self, e: ir.Expr) -> ir.Expr:
        dt = e.dtype
        if not dt.is_float:
            return _c(0, dt)
        zero = _c(0, dt)
        if isinstance(e, ir.LocalRef):
            return ir.LocalRef(self.dl[e.local]) if e.local in self.dl else zero
        if isinstance(e, ir.Load):
            d = self.duals.get(e.array.name) if isinstance(e.array, ir.ArrayArg) else None
            return ir.Load(d, e.indices, e.where) if d is not None else zero
        if isinstance(e, ir.Cast):
            return _cast(self.tangent(e.operand), dt) if e.operand.dtype.is_float else zero
        if isinstance(e, ir.Select):
            return ir.Select(e.cond, _cast(self.tangent(e.a), dt), _cast(self.tangent(e.b), dt), dt)
        if isinstance(e, ir.UnOp):
            if e.op == "neg":
                return ir.UnOp("neg", self.tangent(e.operand), dt)
            if e.op == "abs":
                return _b("*", _sgn(e.operand, dt), self.tangent(e.operand), dt)
            return zero
        if isinstance(e, ir.BinOp):
            return self.binop(e.op, e.lhs, e.rhs, dt)
        if isinstance(e, ir.MathCall):
            if e.fn in _ZERO:
                return zero
            if len(e.args) == 2:
                return self.binop(e.fn, e.args[0], e.args[1], dt)
            x = e.args[0]
            if e.fn in derivatives.UNARY:
                return derivatives.tangent(e.fn, self.tangent(x), x, dt)
            return _b("*", self.unary(e.fn, x, dt), self.tangent(x), dt)
        if isinstance(e, ir.AtomicRMW):
            self.error("the value an atomic operation returns")
        return zero

    def binop(self, op: str, x: ir.Expr, y: ir.Expr, dt: DType) -> ir.Expr:
        dx, dy = _cast(self.tangent(x), dt), _cast(self.tangent(y), dt)
        if op in ("+", "-"):
            return _b(op, dx, dy, dt)
        if op == "*":
            return _b("+", _b("*", dx, y, dt), _b("*", x, dy, dt), dt)
        if op == "/":
            return _b("/", _b("-", _b("*", dx, y, dt), _b("*", x, dy, dt), dt), _b("*", y, y, dt), dt)
        if op in ("min", "max"):
            pick_x = ir.Compare("<=" if op == "min" else ">=", _cast(x, dt), _cast(y, dt), u1)
            return ir.Select(pick_x, dx, dy, dt)
        if op in ("pow", "**"):  # d(x^y) = y x^(y-1) dx + x^y log(x) dy
            p = _m("pow", dt, x, y)
            ddx = _b("*", _b("*", _cast(y, dt), _m("pow", dt, x, _b("-", y, _c(1, dt), dt)), dt), dx, dt)
            if isinstance(dy, ir.Const) and dy.value == 0:
                return ddx
            return _b("+", ddx, _b("*", _b("*", p, _m("log", dt, x), dt), dy, dt), dt)
        if op == "fipow":  # x ** n of an integer n: n x^(n-1) dx
            coeff = derivatives.power(x, _c(y.value - 1, dt) if isinstance(y, ir.Const)
                                      else _b("-", _cast(y, dt), _c(1, dt), dt), dt)
            return _b("*", dx, _b("*", _cast(y, dt), coeff, dt), dt)
        if op == "atan2":  # atan2(x, y): (y dx - x dy) / (x^2 + y^2)
            den = _b("+", _b("*", x, x, dt), _b("*", y, y, dt), dt)
            return _b("/", _b("-", _b("*", y, dx, dt), _b("*", x, dy, dt), dt), den, dt)
        if op in ("//", "%"):
            return _c(0, dt) if op == "//" else dx  # x mod y = x - y floor(x/y): slope 1 in x
        self.error(f"operator '{op}' on floats")
        return _c(0, dt)

    def unary(self, fn: str, x: ir.Expr, dt: DType) -> ir.Expr:
        try:
            d = derivatives.unary(fn, x, dt)
        except KeyError:
            self.error(f"qd.{fn}()")
            return _c(0, dt)
        return _c(0, dt) if d is None else d


def dual_task(task: ir.Task, kernel_name: str, index: int, duals: dict, implicit: dict) -> ir.Task:
    if task.shared:
        raise AutodiffError(f"kernel '{task.kernel}' cannot be differentiated in forward mode: it uses "
                            f"block-shared arrays", task.file, task.lines[0])
    body = _Forward(task, duals).stmts(list(task.body))
    used = {n.name for n in ir.walk(body) if isinstance(n, ir.ArrayArg)}
    params = list(task.params) + [ir.Param(d.name, "array", d.dtype, d.ndim) for d in duals.values() if d.name in used]
    return dataclasses.replace(task, name=f"{task.name}_fwd", kernel=kernel_name, index=index, body=body,
                               params=params, fingerprint="",
                               implicit=tuple(task.implicit) + tuple(implicit[n] for n in sorted(used) if n in implicit))


def dual_tasks(kernel_name: str, tasks: list, field_dual) -> list:
    """The tasks of `kernel_name`, the forward-mode twin of `tasks`. `field_dual(uid)`: the dual
    field of a field, or None."""
    out: list = []
    for t in tasks:
        duals, implicit = {}, {}
        for a in t.implicit:
            if a.role != "field" or not a.dtype.is_float:
                continue
            d = field_dual(int(a.key))
            if d is None:
                continue
            imp = ir.ImplicitArray(dual_name(a.name), "field", d.dtype, tuple(d.storage.shape), d.uid,
                                   layout=memory_order(d), runtime_shape=a.runtime_shape)
            implicit[imp.name] = imp
            duals[a.name] = ir.ArrayArg(imp.name, imp.dtype, len(imp.shape), layout=imp.layout)
        out.append(dual_task(t, kernel_name, len(out), duals, implicit))
    return out


ACTIVE: list = []  # the `qd.ad.FwdMode` managers entered, innermost last
