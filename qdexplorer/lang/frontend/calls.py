"""Calls inside kernels: `@qd.func` inlining is dispatched from here, builtins (`min`, `abs`,
`int`), casts (`qd.cast`, `qd.f32(x)`) and `qd.static`; `qd.*` intrinsics go to `intrinsics.py`.

Callees are recognised by identity of the Python object, so any alias a user makes still works.
"""
from __future__ import annotations

import builtins

from .. import intrinsics as I
from .. import ir
from ..types import DType, as_dtype, f32, i32, promote
from .values import Py, cast, is_number


class CallLowering:
    """Mixin for `TaskBuilder`: lowers `ast.Call` expressions."""

    def v_Call(self, node):
        fn = self.value(node.func)
        if not isinstance(fn, Py):
            self.err(node, "only qd functions, @qd.func functions and builtins can be called in a kernel")
        f = fn.value
        from ..kernel import Func, Kernel  # late: kernel.py imports the frontend
        if isinstance(f, Func):
            return self.inline_func(f, node)
        if isinstance(f, Kernel):
            self.err(node, f"kernel '{f.name}' cannot be called from inside a kernel; make it a @qd.func")
        if f in (builtins.min, builtins.max, I.min, I.max):
            return self.minmax("min" if f in (builtins.min, I.min) else "max", node)
        if f in (builtins.abs, I.abs):
            e = self.expr(self.one_arg(node))
            return ir.UnOp("abs", e, e.dtype)
        if f in (builtins.int, builtins.float):
            v = self.value(self.one_arg(node))
            if is_number(v):
                return Py(f(v.value))
            return cast(self.commit(v, node), i32 if f is builtins.int else f32)
        if f is I.cast:
            if len(node.args) != 2:
                self.err(node, "qd.cast(x, dtype) takes two arguments")
            dt = as_dtype(self.eval_static(node.args[1]))
            if dt is None:
                self.err(node.args[1], "qd.cast's second argument must be a qd dtype")
            return cast(self.commit(self.value(node.args[0]), node, like=dt), dt)
        if isinstance(f, DType):  # qd.f32(x)
            return cast(self.commit(self.value(self.one_arg(node)), node, like=f), f)
        if f is I.static:
            return Py(self.eval_static(self.one_arg(node)))
        if isinstance(f, I.Intrinsic):
            return self.intrinsic(f, node)
        if f is I.loop_config:
            self.err(node, "qd.loop_config() must be a statement directly before a kernel's top-level for")
        if f is I.ndrange or f is builtins.range:
            self.err(node, f"{getattr(f, '__name__', f)}() is only allowed as the iterable of a for loop")
        self.err(node, f"calling {getattr(f, '__name__', repr(f))!s} is not supported inside a kernel")

    def one_arg(self, node):
        if len(node.args) != 1 or node.keywords:
            self.err(node, "this call takes exactly one positional argument")
        return node.args[0]

    def minmax(self, op, node):
        if len(node.args) < 2:
            self.err(node, f"{op}() needs at least two arguments in a kernel")
        acc = self.value(node.args[0])
        for a in node.args[1:]:
            b = self.value(a)
            if is_number(acc) and is_number(b):
                acc = Py(min(acc.value, b.value) if op == "min" else max(acc.value, b.value))
                continue
            ea, eb = self.pair(acc, b, node)
            dt = promote(ea.dtype, eb.dtype)
            acc = ir.BinOp(op, cast(ea, dt), cast(eb, dt), dt)
        return acc
