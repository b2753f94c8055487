"""Recursive `@qd.real_func` calls: a real call of an out-of-line function.

A real_func's call is inlined like a `@qd.func`'s, with the real_func's typed frame (funcs.py):
that gives Quadrants' results. Only a call of a real_func from inside its own body (directly or
through others) cannot be inlined, since how deep it goes is known only at run time; that call
lowers to `ir.Call` of an `ir.FuncDef`, made once per task and specialisation (compile-time
arguments: `qd.template()` ones) and placed at the head of the task's body. Its parameters are
scalars and vectors/matrices, by value; its results one scalar, vector or matrix.
"""
from __future__ import annotations

import math

from ... import ir
from ...ir.errors import QuadrantsTypeError
from ..tasks.source import python_env
from ..template import Template
from ...ir.dtypes import as_dtype, f32
from ..vector_types import VectorType
from .base import LoweringBase
from .frame import Frame
from .values import Py, Vec, cast


class RealFuncCalls(LoweringBase):
    """Mixin for `TaskBuilder`: recursive `@qd.real_func` calls."""

    def outlined_call(self, func, node, first: tuple = ()):
        """`first`: a method's object, bound to its first parameter (a compile-time value)."""
        actual = self.bind_call(func, node, first)
        hints = func.annotations
        key: list = [id(func)]
        args: list[ir.Expr] = []
        statics: dict = {}
        kinds: list = []  # per parameter: ("static", None) | ("scalar", dtype) | ("vec", VectorType)
        params = func.source.fdef.args.args
        for p in params:
            ann = hints.get(p.arg)
            a = actual[p.arg]
            if isinstance(ann, Template) or ann is Template or (ann is None and first and p is params[0]):
                v = a if isinstance(a, Py) else self.value(a)
                statics[p.arg] = v
                key.append((p.arg, id(v.value) if isinstance(v, Py) else id(v)))
                kinds.append(("static", None))
                continue
            v = a if isinstance(a, Py) else self.value(a)
            if isinstance(ann, VectorType):
                if not isinstance(v, Vec) or tuple(v.shape) != tuple(ann.shape):
                    self.err(node, f"argument '{p.arg}' of '{func.name}' must be a {ann!r}", QuadrantsTypeError)
                args += [cast(self.commit(x, node, like=ann.dtype), ann.dtype or f32) for x in v.items]
                kinds.append(("vec", ann))
                continue
            dt = as_dtype(ann)
            if dt is None:
                self.err(node, f"'{func.name}' calls itself, so it is a real call here: its parameters must be "
                               f"scalars, vectors/matrices or qd.template(), not {ann!r}", QuadrantsTypeError)
            args.append(cast(self.commit(v, node, like=dt), dt))
            kinds.append(("scalar", dt))
        fd = self.kscope_funcdef(func, tuple(key), kinds, statics, node)
        outs = [self.new_local(f"{func.name}.ret", o.dtype) for o in fd.outs]
        self.emit(ir.Call(fd.name, tuple(args), tuple(outs)))
        ret = hints.get("return")
        if isinstance(ret, VectorType):
            return Vec([ir.LocalRef(o) for o in outs], ret.shape)
        return ir.LocalRef(outs[0]) if outs else Py(None)

    def kscope_funcdef(self, func, key: tuple, kinds: list, statics: dict, node) -> ir.FuncDef:
        """The task's FuncDef of `func` for these compile-time arguments, lowered on first use."""
        made = self.__dict__.setdefault("_funcdefs", {})
        fd = made.get(key)
        if fd is not None:
            return fd
        hints = func.annotations
        ret = hints.get("return")
        label = f"{func.name}.{next(self.counter)}"
        frame = Frame(func.source, python_env(func.fn), ret_label=label, ret_dtype=as_dtype(ret))
        frame.real = True
        params: list[ir.Local] = []
        for p, (kind, t) in zip(func.source.fdef.args.args, kinds):
            if kind == "static":
                frame.scopes[0][p.arg] = statics[p.arg]
            elif kind == "vec":
                locs = [ir.Local(f"{p.arg}.{k}.{next(self.counter)}", t.dtype or f32) for k in range(_size(t))]
                params += locs
                frame.scopes[0][p.arg] = Vec([ir.LocalRef(x) for x in locs], t.shape)
            else:
                loc = ir.Local(f"{p.arg}.{next(self.counter)}", t)
                params.append(loc)
                frame.scopes[0][p.arg] = loc
        if isinstance(ret, VectorType):
            outs = [ir.Local(f"ret.{k}.{next(self.counter)}", ret.dtype or f32) for k in range(_size(ret))]
            frame.ret_local = Vec([ir.LocalRef(x) for x in outs], ret.shape)
        elif ret is not None:
            dt = as_dtype(ret)
            if dt is None:
                self.err(node, f"'{func.name}' calls itself, so it is a real call here: its result must be a "
                               f"scalar, vector or matrix, not {ret!r}", QuadrantsTypeError)
            outs = [ir.Local(f"ret.{next(self.counter)}", dt)]
            frame.ret_local = outs[0]
        else:
            outs = []
        fd = made[key] = ir.FuncDef(f"{self.kernel_name}.{label}", params, outs, [], label)
        self.out[0].insert(0, fd)  # ahead of every call; emitted out of line
        self.frames.append(frame)
        self.inline_stack.append(func)
        self.out.append([])
        nesting, self.runtime_nesting = self.runtime_nesting, 0
        try:
            for s in func.source.fdef.body:
                self.stmt(s)
        finally:
            fd.body = self.out.pop()
            self.frames.pop()
            self.inline_stack.pop()
            self.runtime_nesting = nesting
        return fd


def _size(t: VectorType) -> int:
    return math.prod(t.shape)
