"""Calls inside kernels: `@qd.func` inlining is dispatched from here, builtins (`min`, `abs`,
`int`), casts (`qd.cast`, `qd.f32(x)`) and `qd.static`; `qd.*` intrinsics go to `intrinsics.py`.

Callees are recognised by identity of the Python object, so any alias a user makes still works.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import sys
import operator
import types
import weakref
from typing import Any

import numpy as np

from .. import intrinsics as I
from ... import ir
from .. import qdmath
from ..host import host_matrix as H
from .. import vector_types as V
from ..func import BoundFunc, Func, KernelBase, func
from ..qd_types import types as qd_types
from ..struct_types import Struct, StructType
from ...ir.dtypes import DType, as_dtype, f32, i32, int_range, promote
from ...ir.errors import QdCompileError, QuadrantsSyntaxError, QuadrantsTypeError
from ..host.buffer_view import BufferView
from ..field import Field
from ..snode import SNode
from .sparse import ArrayMethod, ListMethod
from .values import broadcast, KDict, BoundMethod, Py, Seq, Vec, VecMethod, ViewMethod, cast, default_types, is_number, literal, py_value, truthy
from .base import LoweringBase

_OPERATOR_BIN = {operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult, operator.truediv: ast.Div,
                 operator.floordiv: ast.FloorDiv, operator.mod: ast.Mod, operator.pow: ast.Pow,
                 operator.matmul: ast.MatMult, operator.and_: ast.BitAnd, operator.or_: ast.BitOr,
                 operator.xor: ast.BitXor, operator.lshift: ast.LShift, operator.rshift: ast.RShift}
_OPERATOR_CMP = {operator.lt: ast.Lt, operator.le: ast.LtE, operator.gt: ast.Gt, operator.ge: ast.GtE,
                 operator.eq: ast.Eq, operator.ne: ast.NotEq}
_OPERATOR_UN = {operator.neg: ast.USub, operator.pos: ast.UAdd, operator.not_: ast.Not, operator.invert: ast.Invert}


def _operator_node(f, node: ast.Call):
    """`operator.add(a, b)` (and Quadrants' `qd.lang.ops.add`, the same functions) as the expression
    `a + b` at the call's place, so it lowers exactly as the operator does; None for other calls."""
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    args = node.args
    try:
        un, bin_, cmp = _OPERATOR_UN.get(f), _OPERATOR_BIN.get(f), _OPERATOR_CMP.get(f)
    except TypeError:  # an unhashable callable
        return None
    new: ast.expr
    if un is not None and len(args) == 1:
        new = ast.UnaryOp(op=un(), operand=args[0])
    elif bin_ is not None and len(args) == 2:
        new = ast.BinOp(left=args[0], op=bin_(), right=args[1])
    elif cmp is not None and len(args) == 2:
        new = ast.Compare(left=args[0], ops=[cmp()], comparators=[args[1]])
    else:
        return None
    return ast.copy_location(new, node)


PRINT_SPEC = __import__("re").compile(r"([<>^=]?)([+\- ]?)(#?)(0?)(\d*)(\.\d+)?([deEfFgGxXoiu]?)")


def format_call_as_fstring(node):
    """`"x={} y={:.2f}".format(a, b)` (a constant string) as the f-string `f"x={a} y={b:.2f}"`, as
    Quadrants' front end canonicalises it (positional, numbered and keyword fields); other nodes as given."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)
            and not any(isinstance(a, ast.Starred) for a in node.args) and all(k.arg for k in node.keywords)):
        return node
    import string
    kw = {k.arg: k.value for k in node.keywords}
    values: list = []
    auto = 0
    for text, field, spec, conv in string.Formatter().parse(node.func.value.value):
        if text:
            values.append(ast.Constant(text))
        if field is None:
            continue
        if field == "":
            field, auto = str(auto), auto + 1
        arg = node.args[int(field)] if field.isdigit() and int(field) < len(node.args) else kw.get(field)
        if arg is None:
            return node  # Python's own error at run time would be an IndexError/KeyError: leave it to the call
        values.append(ast.FormattedValue(arg, -1, ast.JoinedStr([ast.Constant(spec)]) if spec else None))
    return ast.copy_location(ast.JoinedStr(values), node)


class CallLowering(LoweringBase):
    """Mixin for `TaskBuilder`: lowers `ast.Call` expressions."""

    def v_Call(self, node):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            node = self.expand_starred(node)
        fn = self.value(node.func)
        if not isinstance(fn, Py):
            self.err(node, "only qd functions, @qd.func functions and builtins can be called in a kernel")
        f = fn.value
        if isinstance(f, Func):
            return self.inline_func(f, node)
        if isinstance(f, I.Intrinsic) and node.keywords:
            node = self.keywords_in_place(f, node)
        owner = getattr(f, "__self__", None)
        if isinstance(owner, KDict):  # d.values(), d.keys(), d.items()
            return getattr(owner, getattr(f, "__name__"))()
        if f is func:  # qd.func(g) inside a kernel, as Quadrants allows
            g = self.value(self.one_arg(node))
            if not isinstance(g, Py) or not callable(g.value):
                self.err(node, "qd.func() needs a Python function")
            return Py(g.value if isinstance(g.value, Func) else func(g.value))
        if isinstance(f, StructType):
            return self.construct_struct(f, node)
        if f is Struct:
            return self.struct_literal(node)
        if isinstance(f, BoundMethod):
            return self.call_method(f, node)
        if isinstance(f, ViewMethod):
            return self.view_method(f, node)
        if f is BufferView:
            return self.construct_view(node)
        if isinstance(f, ArrayMethod):
            return self.array_method(f, node)
        if isinstance(f, ListMethod):
            want = 1 if f.name == "append" else 0
            if len(node.args) != want or node.keywords:
                self.err(node, f"x[...].{f.name}({'value' if want else ''}) takes {want} argument(s)")
            return self.list_call(f.name, f.snode, f.idx, node.args[0] if want else None, node)
        if getattr(f, "__name__", None) == "parent" and isinstance(getattr(f, "__self__", None), (SNode, Field)):
            parent: Any = f
            return Py(parent(*(self.eval_static(a) for a in node.args)))  # x.parent(), ptr.parent(2)
        if isinstance(f, BoundFunc):  # self.helper(...) in a @qd.data_oriented class
            return self.inline_func(f.func, node, self_value=Py(f.obj))
        if isinstance(f, KernelBase):
            self.err(node, f"kernel '{f.name}' cannot be called from inside a kernel; make it a @qd.func")
        vec = self.vector_call(f, node)
        if vec is not None:
            return vec
        if f is builtins.print:
            return self.lower_print(node)
        if f in (builtins.min, builtins.max, I.min, I.max):
            return self.minmax("min" if f in (builtins.min, I.min) else "max", node)
        if f in (builtins.abs, I.abs):
            v = self.value(self.one_arg(node))
            if isinstance(v, Vec):
                return Vec([self.abs_of(x, node) for x in v.items], v.shape)
            return self.abs_of(v, node)
        as_op = _operator_node(f, node)
        if as_op is not None:  # operator.add(a, b) / qd.lang.ops.add(a, b): the operator itself
            return self.value(as_op)
        if f is builtins.pow:  # pow(a, b) is a ** b, as in Python
            if len(node.args) != 2 or node.keywords:
                self.err(node, "pow(a, b) takes two arguments in a kernel (no modulus)")
            return self.binop("**", self.value(node.args[0]), self.value(node.args[1]), node)
        if f is builtins.sum:  # of a compile-time-length list, tuple or vector of kernel values
            items = self.value(self.one_arg(node))
            items = items.items if isinstance(items, (Vec, Seq)) else items
            if isinstance(items, Py) and isinstance(items.value, (list, tuple)):
                items = [Py(x) for x in items.value]
            if not isinstance(items, list) or not items:
                self.err(node, "sum() in a kernel takes a non-empty list, tuple or vector")
            acc = items[0]
            for x in items[1:]:
                acc = self.binop("+", acc, x, node)
            return acc
        if f is I.loop_unique:  # a hint that each iteration touches distinct elements: the value itself
            if not node.args:
                self.err(node, "loop_unique(x) takes the value it marks")
            return self.value(node.args[0])
        if f is I.zero:  # qd.zero(x): zeros of x's type and shape
            v = self.value(self.one_arg(node))
            if isinstance(v, Vec):
                return Vec([self.zero_of(x, node) for x in v.items], v.shape)
            return self.zero_of(v, node)
        if f is builtins.bool:  # bool(x) in a kernel: x != 0, as Quadrants casts to u1
            v = self.value(self.one_arg(node))
            if is_number(v):
                return Py(bool(v.value))
            if isinstance(v, Vec):
                return Vec([Py(bool(x.value)) if is_number(x) else truthy(self.commit(x, node)) for x in v.items],
                           v.shape)
            return truthy(self.commit(v, node))
        if f in (builtins.int, builtins.float):
            v = self.value(self.one_arg(node))
            ip, fp = default_types()  # int(x) / float(x): qd.init's default_ip / default_fp, as in Quadrants
            to = ip if f is builtins.int else fp
            if isinstance(v, Vec):  # componentwise, as Quadrants' int(v) / float(v)
                return Vec([Py(f(x.value)) if is_number(x) else cast(self.commit(x, node), to) for x in v.items],
                           v.shape)
            if is_number(v):
                return Py(f(v.value))
            return cast(self.commit(v, node), to)
        if f is I.cast:
            if len(node.args) != 2:
                self.err(node, "qd.cast(x, dtype) takes two arguments")
            dt = as_dtype(self.eval_static(node.args[1]))
            if dt is None:
                self.err(node.args[1], "qd.cast's second argument must be a qd dtype")
            v = self.value(node.args[0])
            # a Python number is typed as default_ip / default_fp first, as in Quadrants: qd.cast(0.1, qd.f64)
            # is 0.1 rounded to f32 (qd.f64(0.1) keeps it), qd.cast(300, qd.u8) wraps to 44
            if isinstance(v, Vec):
                return Vec([cast(self.commit(x, node), dt) for x in v.items], v.shape)
            return cast(self.commit(v, node), dt)
        if isinstance(f, DType):  # qd.f32(x); qd.f64(0.1) keeps every digit of the literal
            if len(node.args) != 1 or node.keywords:
                self.err(node, "A primitive type can only decorate a single expression.", QuadrantsSyntaxError)
            v = self.value(node.args[0])
            if isinstance(v, (Vec, list, Seq)):
                self.err(node, "A primitive type cannot decorate an expression with a compound type.",
                         QuadrantsSyntaxError)
            if is_number(v) and not isinstance(v.value, bool):
                self.check_typed_literal(v.value, f, node)
            if is_number(v):
                return literal(v.value, f, exact=True) if f.is_float else cast(literal(v.value), f)
            return cast(self.commit(v, node, like=f), f)
        if f is I.static:  # qd.static(a, b) gives the tuple (a, b), as in Quadrants
            if len(node.args) > 1 and not node.keywords:
                return Py(tuple(self.static_value(a) for a in node.args))
            return Py(self.static_value(self.one_arg(node)))
        if f in (np.array, np.asarray):  # np.array(3), np.array([1, 2]) of constants: a compile-time value
            return py_value(self.eval_static(node))
        if f in (V.vector, V.matrix, qd_types.vector, qd_types.matrix):  # qd.types.matrix(2, 2, qd.f32)(...)
            return Py(self.eval_static(node))
        if isinstance(f, I.Intrinsic):
            return self.intrinsic(f, node)
        if f is I.loop_config:
            return self.inner_loop_config(node)
        if f is I.ndrange or f is builtins.range:
            self.err(node, f"{getattr(f, '__name__', f)}() is only allowed as the iterable of a for loop")
        name = getattr(f, "__name__", repr(f))
        if _foldable(f):  # compile-time Python, as Quadrants runs Python functions while it compiles:
            static = self.static_call_args(node)  # on constants it is called now (math.exp(2.0) folds) ...
            if static is not None:
                call: Any = f
                try:
                    return py_value(call(*static[0], **static[1]))
                except Exception as e:  # noqa: BLE001 - reported at the user's line
                    self.err(node, f"calling {name}(...) at compile time failed: {type(e).__name__}: {e}")
            if isinstance(f, types.FunctionType) and f.__module__ not in _PY_MODULES:  # ... on kernel values a
                return self.inline_func(_as_func(f), node)  # plain function, lambda or closure is inlined
            if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType) \
                    and f.__func__.__module__ not in _PY_MODULES:  # a plain method of an object: self bound
                return self.inline_func(_as_func(f.__func__), node, self_value=Py(f.__self__))
        if isinstance(f, type) and f.__module__ not in _PY_MODULES and not f.__module__.startswith("qdexplorer"):
            return self.construct(f, name, node)
        self.err(node, f"calling {name!s} is not supported inside a kernel{_kernel_twin(name)}")

    def construct(self, cls: type, name: str, node: ast.Call) -> Py:
        """`Ray(origin, direction)` of a user's class in a kernel: Quadrants runs its `__init__` as plain
        Python while it compiles, on the kernel values it is given, and the object holds them (its
        @qd.func methods then read them as `self.origin`). The same here: the object is a compile-time
        value whose attributes are kernel values."""
        unwrap = lambda v: v.value if isinstance(v, Py) else v  # noqa: E731 - Python values stay Python
        args = [unwrap(self.value(a)) for a in node.args]
        kwargs = {k.arg: unwrap(self.value(k.value)) for k in node.keywords if k.arg is not None}
        try:
            return Py(cls(*args, **kwargs))
        except Exception as e:  # noqa: BLE001 - reported at the user's line
            self.err(node, f"constructing {name}(...) in a kernel failed: {type(e).__name__}: {e} (its __init__ "
                           f"runs as Python while the kernel compiles, on kernel values it can only store)")

    def static_value(self, node):
        """qd.static(x): Quadrants takes numbers, ranges, lists, tuples, ndranges, fields, functions, ...
        but not a string, a dict or a set (its ValueError, at the line)."""
        v = self.eval_static(node)
        if isinstance(v, (str, dict, set)):
            self.err(node, f"Input to qd.static must be compile-time constants or global pointers, instead of "
                           f"{type(v)}", QuadrantsTypeError)
        return v

    def keywords_in_place(self, f: I.Intrinsic, node: ast.Call) -> ast.Call:
        """`qd.atomic_add(x=a[i], y=1)`: the keywords that name a positional parameter of Quadrants'
        signature (intrinsics.PARAMS) become positional arguments in their places, so each intrinsic's
        lowering sees the call as written positionally; an unknown keyword is Python's TypeError."""
        sig = getattr(f, "__signature__", None)
        if sig is None or any(k.arg is None for k in node.keywords) \
                or any(isinstance(a, ast.Starred) for a in node.args):
            return node
        params = list(sig.parameters.values())
        named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            for k in node.keywords:
                if k.arg not in named:
                    self.err(node, f"qd.{f.name}() got an unexpected keyword argument '{k.arg}'", QuadrantsTypeError)
        kw = {k.arg: k for k in node.keywords}
        args = list(node.args)
        for p in params[:len(args)]:
            if p.name in kw and p.kind == p.POSITIONAL_OR_KEYWORD:
                self.err(node, f"qd.{f.name}() got multiple values for argument '{p.name}'", QuadrantsTypeError)
        for p in params[len(args):]:
            if p.kind != p.POSITIONAL_OR_KEYWORD or p.name not in kw:
                break
            args.append(kw.pop(p.name).value)
        return ast.copy_location(ast.Call(node.func, args, list(kw.values())), node)

    def check_typed_literal(self, value, dt: DType, node) -> None:
        """`qd.u16(-1)`, `qd.f32(0)`, `qd.i32(0.0)`: Quadrants' QuadrantsTypeErrors for a literal its type
        does not take (a cast of a value is `qd.cast`)."""
        if isinstance(value, float) and not dt.is_float:
            self.err(node, "Floating-point literals must be annotated with a floating-point type. For type "
                           "casting, use `qd.cast`.", QuadrantsTypeError)
        if isinstance(value, int) and not dt.is_int:
            self.err(node, "Integer literals must be annotated with a integer type. For type casting, use "
                           "`qd.cast`.", QuadrantsTypeError)
        if isinstance(value, int):
            lo, hi = int_range(dt)
            if not lo <= value <= hi:
                self.err(node, f"Integer literal {value} exceeded the range of specified dtype: {dt.name}",
                         QuadrantsTypeError)

    def expand_starred(self, node: ast.Call) -> ast.Call:
        """`qd.min(*a, *b)` of vectors (or compile-time tuples) named by a variable: each component
        becomes an argument (`a[0], a[1], ...`), as Python's unpacking gives them."""
        args: list = []
        keywords: list = []
        keywords = list(node.keywords)  # f(**d) stays refused, as Quadrants fails on it (KeyError: None)
        for a in node.args:
            if isinstance(a, ast.Starred) and not isinstance(a.value, (ast.Name, ast.Attribute)):
                try:  # *T[1:], *(1, 2): a compile-time sequence, its items indexed one by one
                    seq = self.eval_static(a.value)
                except QdCompileError:
                    seq = None
                if isinstance(seq, (tuple, list)):
                    args += [ast.copy_location(ast.Subscript(a.value, ast.Constant(k), ast.Load()), a)
                             for k in range(len(seq))]
                    continue
            if not (isinstance(a, ast.Starred) and isinstance(a.value, (ast.Name, ast.Attribute))):
                args.append(a)
                continue
            v = self.value(a.value)
            n = len(v.items) if isinstance(v, Vec) and len(v.shape) == 1 else \
                len(v.value) if isinstance(v, Py) and isinstance(v.value, (tuple, list)) else None
            if n is None:
                self.err(a, "*unpacking in a kernel call takes a vector or a compile-time tuple")
            args += [ast.copy_location(ast.Subscript(a.value, ast.copy_location(ast.Constant(k), a), ast.Load()), a)
                     for k in range(n)]
        return ast.fix_missing_locations(ast.copy_location(ast.Call(node.func, args, keywords), node))

    def static_call_args(self, node) -> tuple | None:
        """(args, kwargs) of a call whose arguments are all known at compile time, else None."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        try:
            args = [self.eval_static(a) for a in node.args]
            kwargs = {k.arg: self.eval_static(k.value) for k in node.keywords}
        except QdCompileError:
            return None
        return args, kwargs

    def lower_print(self, node):
        """`print(a, "text", v, f"x={x}")` as Quadrants prints: f32 as %f, f64 as %.12f, vectors as [a, b]."""
        sep, end = " ", "\n"
        for kw in node.keywords:
            val = self.eval_static(kw.value)
            if kw.arg == "sep" and isinstance(val, str):
                sep = val
            elif kw.arg == "end" and isinstance(val, str):
                end = val
            else:
                self.err(kw, "print() supports only constant sep= and end= in kernels")
        parts: list = []
        for i, a in enumerate(node.args):
            if i:
                parts.append(sep)
            parts += self.print_parts(a)
        parts.append(end)
        merged: list = []
        specs: list = []
        for p in parts:
            p, spec = p if isinstance(p, tuple) else (p, "")
            if isinstance(p, str) and merged and isinstance(merged[-1], str):
                merged[-1] += p
            else:
                merged.append(p)
                specs.append(spec)
        self.emit(ir.Print(tuple(merged), tuple(specs) if any(specs) else ()))
        return Py(None)

    def print_parts(self, a, spec: str = "") -> list:
        """Text and values; a value with a format spec (f"{x:.2f}", "{:.2f}".format(x)) as (value, spec)."""
        out: list = []
        a = format_call_as_fstring(a)
        if isinstance(a, ast.JoinedStr):
            for part in a.values:
                if isinstance(part, ast.FormattedValue):
                    fs = part.format_spec
                    s = "".join(str(x.value) for x in getattr(fs, "values", []) if isinstance(x, ast.Constant))
                    out += self.print_parts(part.value, s)
                elif isinstance(part, ast.Constant):
                    out.append(str(part.value))
            return out
        if spec:
            if PRINT_SPEC.fullmatch(spec) is None:
                self.err(a, f"print format spec {spec!r} is not supported in a kernel (use width, precision and "
                            f"one of d, e, f, g, x, o)", QuadrantsSyntaxError)
            v = self.value(a)
            if isinstance(v, Py) and not is_number(v):
                return [format(v.value, spec)]
            conv = PRINT_SPEC.fullmatch(spec).group(7)
            for x in (v.items if isinstance(v, Vec) else [v]):
                dt = self.commit(x, a).dtype
                if conv and conv not in ("d" if dt.is_int or dt.kind == "b" else "eEfFgG"):
                    self.err(a, f"'{conv}' doesn't match '{dt.name}'.", QuadrantsTypeError)
            if isinstance(v, Vec):
                return ["["] + [y for k, x in enumerate(v.items) for y in ([", "] if k else []) +
                                [(self.commit(x, a), spec)]] + ["]"]
            return [(self.commit(v, a), spec)]
        v = self.value(a)
        if isinstance(v, Py) and not is_number(v):
            return [str(v.value)]
        if isinstance(v, Vec):
            out.append("[")
            for k, x in enumerate(v.items):
                out += ([", "] if k else []) + [self.commit(x, a)]
            return out + ["]"]
        return [self.commit(v, a)]

    def zero_of(self, x, node):
        if is_number(x):
            return Py(type(x.value)(0))
        e = self.commit(x, node)
        return ir.Const(0.0 if e.dtype.is_float else 0, e.dtype)

    def abs_of(self, v, node):
        if is_number(v):
            return Py(abs(v.value))
        e = self.commit(v, node)
        return ir.UnOp("abs", e, e.dtype)

    def vector_call(self, f, node):
        """Vector and matrix constructors, methods and `qd.math` vector functions; None if `f` is none."""
        if isinstance(f, VecMethod):
            return self.vec_call_method(f, node)
        if isinstance(f, V.VectorType):
            return self.vec_from_type(f, node)
        if f is V.Vector or f is V.Matrix:
            dt = None
            rest = node.args[1:] + [k.value for k in node.keywords if k.arg in ("dt", "dtype")]
            if rest:
                dt = as_dtype(self.eval_static(rest[0]))
            return self.vec_literal([self.value(node.args[0])], node, dt, matrix=f is V.Matrix)
        statics: dict[object, str] = {V.Vector.zero: "zero", V.Vector.one: "one", V.Vector.unit: "unit", V.Matrix.identity: "identity",
                   V.Matrix.zero: "mzero", V.Matrix.one: "mone", V.Matrix.unit: "unit"}
        if f is V.Matrix.diag:  # qd.Matrix.diag(n, x): x may be a kernel value; diag(dim=2, val=1) too
            given = dict(zip(("dim", "val"), node.args)) | {k.arg: k.value for k in node.keywords}
            if set(given) != {"dim", "val"} or len(node.args) + len(node.keywords) != 2:
                self.err(node, "qd.Matrix.diag(dim, val) takes dim and val", QuadrantsTypeError)
            n = self.eval_static(given["dim"])
            x = self.value(given["val"])
            zero = self.zero_of(x, node)
            return Vec([x if r == c else zero for r in range(n) for c in range(n)], (n, n))
        if f in (V.Matrix.rows, V.Matrix.cols):  # qd.Matrix.rows([v0, v1]) / cols(...)
            seq: Any = self.value(node.args[0])
            vecs: list[Any] = seq if isinstance(seq, list) else seq.items if isinstance(seq, Seq) else \
                [py_value(x) for x in seq.value] if isinstance(seq, Py) and isinstance(seq.value, (list, tuple)) else []
            vecs = [v if isinstance(v, Vec) else self.vec_literal([v], node) for v in vecs]
            if not vecs or not all(isinstance(v, Vec) and len(v.shape) == 1 for v in vecs):
                self.err(node, "qd.Matrix.rows/cols takes a list of vectors")
            k, n = len(vecs), vecs[0].shape[0]
            if f is V.Matrix.rows:
                return Vec([x for v in vecs for x in v.items], (k, n))
            return Vec([vecs[c].items[r] for r in range(n) for c in range(k)], (n, k))
        method = _CLASS_METHODS.get(f) if isinstance(f, types.FunctionType) else None  # type: ignore[call-overload]
        if method is not None:  # qd.Vector.normalized(v, eps), qd.Matrix.transpose(m): v's own method
            v = self.value(node.args[0])
            if not isinstance(v, Vec):
                self.err(node, f"qd.Vector.{method}(v, ...) needs a vector or matrix as v", QuadrantsTypeError)
            return self.vec_call_method(VecMethod(v, _KERNEL_NAME.get(method, method)),
                                        ast.Call(func=node.func, args=node.args[1:], keywords=node.keywords))
        kind = statics.get(f) if isinstance(f, types.FunctionType) else None
        if kind is not None:
            a = [self.eval_static(x) for x in node.args]
            kw = {k.arg: self.eval_static(k.value) for k in node.keywords}
            try:  # qd.Matrix.identity(dt=qd.f32, n=3): keywords bound as Python binds them
                bound = inspect.signature(f).bind(*a, **kw)
            except TypeError as e:
                self.err(node, f"qd.{'Matrix' if kind in ('identity', 'mzero', 'mone') else 'Vector'}.{f.__name__}(): {e}",
                         QuadrantsTypeError)
            arr = np.asarray(f(*bound.args, **bound.kwargs))
            dt = as_dtype(bound.arguments["dt"]) if bound.arguments.get("dt") is not None else None
            dt = dt or (f32 if arr.dtype.kind == "f" else i32)
            return self.make_vec([Py(x.item()) for x in arr.ravel()], arr.shape, dt, node)
        if f in (builtins.all, builtins.any):
            v = self.value(self.one_arg(node))
            if not isinstance(v, Vec):
                return v
            return self.vec_anyall(f.__name__, v, node)
        if isinstance(f, I.Intrinsic) and f.kind == "vecmath":
            args = [self.value(a) for a in node.args]
            if f.name in ("dot", "cross", "normalize", "length", "transpose", "determinant", "inverse", "norm"):
                if not args or not isinstance(args[0], Vec):
                    self.err(node, f"qd.math.{f.name}() needs a vector or matrix", QuadrantsTypeError)
                return self.vec_call_method(VecMethod(args[0], f.name), ast.Call(func=node.func, args=node.args[1:],
                                                                               keywords=[]))
            if f.name == "clamp":
                lo = self.elementwise_minmax("max", args[0], args[1], node)
                return self.elementwise_minmax("min", lo, args[2], node)
            if f.name == "mix":
                x, y, a = args
                return self.binop("+", self.binop("*", x, self.binop("-", Py(1.0), a, node), node),
                                  self.binop("*", y, a, node), node)
        return None

    def elementwise_minmax(self, op, a, b, node):
        """`op` ("min" or "max") of two values, item by item where either is a vector (a scalar
        broadcast against it)."""
        if isinstance(a, Vec) or isinstance(b, Vec):
            n = len((a if isinstance(a, Vec) else b).items)
            xs = a.items if isinstance(a, Vec) else broadcast(a, n)
            ys = b.items if isinstance(b, Vec) else broadcast(b, n)
            return Vec([self.minmax_pair(op, x, y, node) for x, y in zip(xs, ys)],
                       (a if isinstance(a, Vec) else b).shape)
        return self.minmax_pair(op, a, b, node)

    def inner_loop_config(self, node):
        """`qd.loop_config(...)` before a loop that is not a task (inside another loop, or nested in an
        if): an inner loop runs in one thread, so there is nothing to configure; a name is dropped with
        Quadrants' warning, as only top-level loops become named tasks."""
        if node.args or any(k.arg is None for k in node.keywords):
            self.err(node, "qd.loop_config() takes keyword arguments (name=, block_dim=, serialize=, ...)")
        opts = {k.arg: self.eval_static(k.value) for k in node.keywords}
        if opts.get("name") is not None and (self.in_parallel or self.frame.loop_depth != 0):
            print(f"[Quadrants] [W] qd.loop_config(name=\"{opts['name']}\") is set on a for-loop nested inside "
                  "another for-loop; the name is ignored. Only top-level loops are offloaded as separately named "
                  "kernels. Move the loop to the top level, or unroll the enclosing loop with `for ... in "
                  "qd.static(range(...))` so each inner loop becomes its own named kernel.", file=sys.stderr)
        return Py(None)

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
            if isinstance(acc, Vec) or isinstance(b, Vec):
                acc = self.elementwise_minmax(op, acc, b, node)
                continue
            if is_number(acc) and is_number(b):
                acc = Py(min(acc.value, b.value) if op == "min" else max(acc.value, b.value))
                continue
            ea, eb = self.pair(acc, b, node)
            dt = promote(ea.dtype, eb.dtype)
            acc = ir.BinOp(op, cast(ea, dt), cast(eb, dt), dt)
        return acc


_CLASS_METHODS = {fn: name for name, fn in H.METHODS.items()}
_PY_MODULES = {"math", "cmath", "builtins", "operator", "random"}  # their functions run, they are not inlined
_FUNCS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


_SAFE_BUILTINS = {abs, round, min, max, int, float, bool, len, pow, sum, divmod, complex, tuple, list, range,
                  sorted, reversed, zip, enumerate, any, all, isinstance, getattr, hasattr, str, repr, hash}


def _foldable(f) -> bool:
    """Whether a callable may run in Python while a kernel compiles: user Python functions, math and
    NumPy functions and scalar types, and pure builtins (never I/O such as `open`)."""
    if isinstance(f, types.FunctionType) or (isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType)):
        return True
    try:
        if f in _SAFE_BUILTINS:
            return True
    except TypeError:  # unhashable
        return False
    mod = getattr(f, "__module__", None) or getattr(type(f), "__module__", "")
    return isinstance(f, np.ufunc) or mod in ("math", "cmath") or str(mod).startswith("numpy") or \
        (isinstance(f, type) and issubclass(f, np.generic))


def _as_func(fn) -> Func:
    """A Python function called in a kernel, as the `@qd.func` Quadrants would trace it into."""
    f = _FUNCS.get(fn)
    if f is None:
        f = _FUNCS[fn] = Func(fn)
    return f
_KERNEL_NAME = {"get_shape": "shape"}


def _kernel_twin(name) -> str:
    """A hint naming the qd function that does what a Python one (`math.sin`, `np.dot`) does."""
    if not isinstance(name, str):
        return ""
    if isinstance(getattr(I, name, None), I.Intrinsic):
        return f"; use qd.{name}"
    if isinstance(getattr(qdmath, name, None), I.Intrinsic):
        return f"; use qd.math.{name}"
    return ""
