"""`@qd.func` calls: inlined at every call site, as a labelled block that `return` leaves."""
from __future__ import annotations

from .. import ir
from ..source import python_env
from ..types import NdarrayType, as_dtype
from .values import Py, cast, is_number
from .frame import Frame


class FuncInlining:
    """Mixin for `TaskBuilder`: inlines `@qd.func` bodies and lowers their `return`s."""

    def inline_func(self, func, node):
        if func in self.inline_stack:
            self.err(node, f"recursive call of @qd.func '{func.name}' is not supported")
        src = func.source
        fdef = src.fdef
        params = fdef.args.args
        if len(node.args) + len(node.keywords) != len(params):
            self.err(node, f"'{func.name}' takes {len(params)} argument(s), got "
                           f"{len(node.args) + len(node.keywords)}")
        actual = dict(zip([p.arg for p in params], node.args))
        for kw in node.keywords:
            actual[kw.arg] = kw.value
        hints = func.annotations
        label = f"{func.name}.{next(self.counter)}"
        bound = {}
        for p in params:
            v = self.value(actual[p.arg])
            ann = hints.get(p.arg)
            dt = as_dtype(ann)
            if isinstance(ann, NdarrayType) or isinstance(v, (ir.ArrayArg, ir.SharedArray)):
                if not isinstance(v, (ir.ArrayArg, ir.SharedArray)):
                    self.err(actual[p.arg], f"argument '{p.arg}' of '{func.name}' must be an ndarray")
                bound[p.arg] = v
            elif isinstance(v, Py) and not is_number(v):
                bound[p.arg] = v
            else:
                e = self.commit(v, node, like=dt)
                bound[p.arg] = self.new_local(p.arg, dt or e.dtype, e)
        ret_dt = as_dtype(hints.get("return"))
        frame = Frame(src, python_env(func.fn), ret_label=label, ret_dtype=ret_dt)
        frame.scopes[0].update(bound)
        self.frames.append(frame)
        self.inline_stack.append(func)
        self.out.append([])
        try:
            for s in fdef.body:
                self.stmt(s)
        finally:
            body = self.out.pop()
            self.frames.pop()
            self.inline_stack.pop()
        self.emit(ir.Block(label, body))
        return ir.LocalRef(frame.ret_local) if frame.ret_local is not None else Py(None)

    def s_Return(self, node):
        fr = self.frame
        if fr.ret_label is None:
            self.err(node, "kernels cannot return values; write results into an ndarray argument")
        if node.value is not None:
            e = self.commit(self.value(node.value), node, like=fr.ret_dtype)
            if fr.ret_local is None:
                fr.ret_local = self.new_local("ret", fr.ret_dtype or e.dtype)
            self.emit(ir.Assign(fr.ret_local, cast(e, fr.ret_local.dtype)))
        self.emit(ir.Return(fr.ret_label))
