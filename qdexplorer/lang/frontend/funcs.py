"""`@qd.func` calls: inlined at every call site, as a labelled block that `return` leaves."""
from __future__ import annotations

import ast
import inspect

from ... import ir
from ..calls.arg_binding import bind_arguments
from ...ir.errors import QuadrantsArgumentError, QuadrantsSyntaxError, QuadrantsTypeError
from ..tasks.source import python_env
from ..func import RefType
from ..calls.return_values import tuple_items
from ..struct_types import StructType
from ..template import Template, template
from ...ir.dtypes import NdarrayType, as_dtype, i32
from ..vector_types import VectorType
from .values import BufView, Py, Seq, StructArr, StructVal, Vec, cast, is_number
from .frame import Frame
from .base import LoweringBase, Value


class FuncInlining(LoweringBase):
    """Mixin for `TaskBuilder`: inlines `@qd.func` bodies and lowers their `return`s."""

    def inline_func(self, func, node, self_value=None):
        """`self_value`: bound to the first parameter of a method: a struct's (`s.area()`) or a
        `@qd.data_oriented` object's (`Py(obj)`, `self.helper(i)`)."""
        if func in self.inline_stack:
            if func.is_real:  # recursion: a real call of an out-of-line function (real_funcs.py)
                return self.outlined_call(func, node, () if self_value is None else (self_value,))
            self.err(node, f"recursive call of @qd.func '{func.name}' is not supported (make it a "
                           f"@qd.real_func, which may call itself)")
        if getattr(func, "requires_top_level", False) and (self.in_parallel or self.runtime_nesting):
            via = "".join(f" (through '{f.name}')" for f in self.inline_stack[-1:])
            self.err(node, f"@qd.func '{func.name}' has requires_top_level=True but is called inside a runtime "
                           f"for/while/if{via}: call it at the kernel's top level", QuadrantsSyntaxError)
        src = func.source
        fdef = src.fdef
        params = fdef.args.args
        actual = self.bind_call(func, node, () if self_value is None else (self_value,))
        hints = func.annotations
        label = f"{func.name}.{next(self.counter)}"
        bound: dict[str, Value] = {}
        for p in params:
            a = actual[p.arg]
            v = a if isinstance(a, (Py, StructVal)) else self.value(a)
            ann = hints.get(p.arg)
            dt = as_dtype(ann)
            if isinstance(ann, Template) or ann is Template or ann is template:  # passed as it is, by
                # reference, as Quadrants passes templates
                bound[p.arg] = v.local if isinstance(v, ir.LocalRef) and isinstance(a, ast.Name) else v
            elif isinstance(ann, RefType):  # the caller's variable itself
                bound[p.arg] = self.ref_argument(func, p.arg, a, v, node)
            elif isinstance(ann, NdarrayType) or isinstance(v, (ir.ArrayArg, ir.SharedArray)):
                if not isinstance(v, (ir.ArrayArg, ir.SharedArray)):
                    self.err(node, f"argument '{p.arg}' of '{func.name}' must be an ndarray")
                bound[p.arg] = v
            elif isinstance(v, Py) and not is_number(v):
                bound[p.arg] = v
            elif isinstance(v, BufView):  # a view: its array by reference, its window by value
                bound[p.arg] = v
            elif isinstance(ann, VectorType) and not ann.is_bare:
                bound[p.arg] = self.vec_argument(p.arg, ann, v, node)
            elif isinstance(v, Vec):
                bound[p.arg] = self.vec_local(v, p.arg)  # by value, as Quadrants passes vectors
            elif isinstance(v, StructVal):
                bound[p.arg] = v if v is self_value else self.struct_local(v, p.arg)  # structs too
            elif isinstance(v, (list, Seq)) and dt is None:  # `f([i * dx, j * dx])`: a list of kernel values,
                items: list = []  # each item copied into a local, as Quadrants' expr_init copies them
                for k, x in enumerate(v.items if isinstance(v, Seq) else v):
                    if isinstance(x, Vec):
                        items.append(self.vec_local(x, f"{p.arg}{k}"))
                    else:
                        e = self.commit(x, node)
                        items.append(ir.LocalRef(self.new_local(f"{p.arg}{k}", e.dtype, e)))
                bound[p.arg] = Seq(items)
            else:
                e = self.commit(v, node, like=dt)
                bound[p.arg] = self.new_local(p.arg, dt or e.dtype, e)
        if "return" in hints and not has_return(fdef):
            self.err(node, f"Function has a return type but does not have a return statement: '{func.name}' is "
                           f"annotated -> {hints['return']!r}; return a value, or drop the annotation")
        ret_dt = as_dtype(hints.get("return"))
        frame = Frame(src, python_env(func.fn), ret_label=label, ret_dtype=ret_dt)
        self.frame.call_at = self.at(node)  # where the caller is while the func runs (BufferView's callstack)
        self.frame.call_node = node  # ... and the call itself (an error's Quadrants-form position text)
        frame.real = func.is_real
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
        self.emit(ir.Block(label, body, real=func.is_real))
        if isinstance(frame.ret_local, (Vec, StructVal)) or _is_reference(frame.ret_local):
            return frame.ret_local
        if isinstance(frame.ret_local, tuple):  # `return a, b`: a runtime tuple, for `x, y = f()`
            return [r if isinstance(r, (Vec, StructVal)) else ir.LocalRef(r) for r in frame.ret_local]
        return ir.LocalRef(frame.ret_local) if frame.ret_local is not None else Py(None)

    def vec_argument(self, name: str, ann: VectorType, v, node) -> Vec:
        """A vector/matrix parameter: a copy of the argument, which must have the annotation's shape,
        in its dtype (Quadrants' checks and words)."""
        what = f"Argument {name} of type {ann!r} is expected to be a Matrix"
        if not isinstance(v, Vec):
            self.err(node, f"{what}, but got a scalar.", QuadrantsSyntaxError)
        if len(v.shape) != len(ann.shape):
            self.err(node, f"{what} with ndim {len(ann.shape)}, but got {len(v.shape)}.", QuadrantsSyntaxError)
        for word, want, got in zip(("n", "m"), ann.shape, v.shape):
            if want != got:
                self.err(node, f"{what} with {word} {want}, but got {got}.", QuadrantsSyntaxError)
        if ann.dtype is None:
            return self.vec_local(v, name)
        return self.vec_local(Vec([cast(self.commit(x, node, like=ann.dtype), ann.dtype) for x in v.items], v.shape),
                              name)

    def ref_argument(self, func, name: str, a, v, node):
        """A `qd.ref(dtype)` parameter: the caller's local variable, which the body then reads and
        assigns in place (Quadrants passes its address)."""
        if isinstance(v, ir.LocalRef) and isinstance(a, ast.Name):
            return v.local
        if isinstance(v, Vec) and isinstance(a, ast.Name) and all(isinstance(x, ir.LocalRef) for x in v.items):
            return v
        self.err(node, f"argument '{name}' of '{func.name}' is a qd.ref parameter: pass a local variable",
                 QuadrantsTypeError)

    def bind_call(self, func, node, first: tuple = ()) -> dict:
        """Parameter name → AST node (or `Py` default, or a value given in `first`, a method's
        struct), with Python's own rules and messages."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            self.err(node, f"*args and **kwargs are not supported when calling '{func.name}' in a kernel")
        try:
            ba = bind_arguments(inspect.signature(func.fn), func.name, (*first, *node.args),
                                {k.arg: k.value for k in node.keywords})
        except QuadrantsArgumentError as e:
            self.err(node, e.message, QuadrantsArgumentError)
        return {k: (v if isinstance(v, (ast.AST, StructVal, Py)) else Py(v)) for k, v in ba.arguments.items()}

    def s_Return(self, node):
        fr = self.frame
        if fr.ret_label is None:
            return self.kernel_return(node)
        if not _returns_nothing(node):
            if fr.real and "return" not in self.inline_stack[-1].annotations:
                self.err(node, "A function with a return value must be annotated with a return type, "
                               "e.g. def func() -> qd.f32", QuadrantsSyntaxError)
            v = self.value(node.value)
            if isinstance(v, list) or isinstance(fr.ret_local, tuple) or (
                    isinstance(v, Py) and isinstance(v.value, tuple)):
                self.return_tuple(v, node)
            elif isinstance(fr.ret_local, StructVal):
                self.store_struct(fr.ret_local, v, node)
            elif isinstance(v, StructVal):
                if fr.ret_local is not None:
                    self.err(node, f"'{(fr.ret_label or '').split('.')[0]}' returns a struct here and another "
                                   f"kind of value elsewhere", QuadrantsTypeError)
                fr.ret_local = self.struct_local(v, "ret")
            elif isinstance(fr.ret_local, Vec):
                self.assign_vec(fr.ret_local, v, node)
            elif _is_reference(v) or _is_reference(fr.ret_local):  # `return res`: the array itself, as
                if fr.ret_local is not None and fr.ret_local != v:  # Quadrants hands the Python object back
                    self.err(node, f"'{(fr.ret_label or '').split('.')[0]}' returns different arrays or "
                                   f"compile-time values on different paths", QuadrantsTypeError)
                fr.ret_local = v
            elif isinstance(v, Vec):
                if fr.ret_local is not None:  # an earlier return gave a scalar
                    self.err(node, f"'{fr.ret_label.split('.')[0]}' returns a scalar elsewhere and a "
                                   f"{'x'.join(map(str, v.shape))} vector/matrix here", QuadrantsTypeError)
                fr.ret_local = self.vec_local(v, "ret")
            else:
                e = self.commit(v, node, like=fr.ret_dtype)
                if fr.ret_local is None:
                    fr.ret_local = self.new_local("ret", fr.ret_dtype or e.dtype)
                self.emit(ir.Assign(fr.ret_local, cast(e, fr.ret_local.dtype)))
        self.emit(ir.Return(fr.ret_label))

    def return_tuple(self, v, node):
        """`return a, b` from a `@qd.func`: one result local per item, typed by the first return
        (as Quadrants types a func's results); every later return must give as many items."""
        fr = self.frame
        items = v if isinstance(v, list) else [Py(x) for x in v.value] if (
            isinstance(v, Py) and isinstance(v.value, tuple)) else None
        prev = fr.ret_local
        n_before = len(prev) if isinstance(prev, tuple) else None
        if items is None or (prev is not None and (not isinstance(prev, tuple) or len(prev) != len(items))):
            self.err(node, f"'{(fr.ret_label or '').split('.')[0]}' returns {n_before or 1} value(s) here "
                           f"and {len(items) if items is not None else 1} elsewhere; every return "
                           "must give the same number of values", QuadrantsSyntaxError)
        if prev is None:
            made: list[ir.Local | Vec | StructVal] = []
            ann = self.inline_stack[-1].annotations.get("return") if self.inline_stack else None
            types = [as_dtype(a) for a in ann] if isinstance(ann, tuple) and len(ann) == len(items) else \
                [None] * len(items)  # `-> (qd.i32, qd.f32)`: each result its annotated type
            for k, x in enumerate(items):
                want = types[k]
                if want is not None and not isinstance(x, (Vec, StructVal)):
                    made.append(self.new_local(f"ret{k}", want, cast(self.commit(x, node, like=want), want)))
                elif isinstance(x, Vec):
                    made.append(self.vec_local(x, f"ret{k}"))
                elif isinstance(x, StructVal):
                    made.append(self.struct_local(x, f"ret{k}"))
                else:
                    e = self.commit(x, node)
                    made.append(self.new_local(f"ret{k}", e.dtype, e))
            fr.ret_local = tuple(made)
            return
        for r, x in zip(prev, items):
            if isinstance(r, Vec):
                self.assign_vec(r, x, node)
            elif isinstance(r, StructVal):
                self.store_struct(r, x, node)
            else:
                self.emit(ir.Assign(r, cast(self.commit(x, node, like=r.dtype), r.dtype)))

    def kernel_return(self, node):
        """`return v` at a kernel's top level stores v in the result array; the kernel ends there, as
        nothing after it is part of the kernel (toplevel.py); a bare `return` (or `return None`) too."""
        if len(self.out) != 1 or self.frame.loop_depth or self.in_parallel:
            self.err(node, "Return inside non-static if/for is not supported: a kernel can only return from its "
                           "top level, not from inside an if or a loop", QuadrantsSyntaxError)
        ret = self.kscope.ret
        if _returns_nothing(node):
            return
        if self.kscope.ret_leaves:  # a struct or tuple result: each leaf into its own array
            it = iter(self.kscope.ret_leaves)
            self.store_leaves(self.kscope.ret_annotation, self.value(node.value), it, node)
            return
        if ret is None:
            self.err(node, "this kernel returns a value but has no return annotation; add one "
                           "(def k(...) -> qd.f32:)", QuadrantsSyntaxError)
        v = self.value(node.value)
        self.store_result(ret, v, node)

    def store_leaves(self, ann, v, arrays, node):
        """Store `v` (a struct, tuple, vector or scalar) into the result arrays of `ann`'s leaves, in order."""
        items = tuple_items(ann)
        if isinstance(ann, StructType):
            if not isinstance(v, StructVal):
                self.err(node, f"this kernel returns {ann!r}, but the value is not a struct", QuadrantsTypeError)
            if isinstance(v.stype, StructType) and v.stype is not ann and v.stype.members != ann.members:
                self.err(node, f"this kernel returns {ann!r}, but the value is a {v.stype!r}", QuadrantsTypeError)
            for k, t in ann.members.items():
                if k not in v.members:
                    self.err(node, f"the returned struct has no member '{k}' of {ann!r}", QuadrantsTypeError)
                self.store_leaves(t, v.members[k], arrays, node)
            return
        if items is not None:
            vals = v if isinstance(v, list) else [Py(x) for x in v.value] if (
                isinstance(v, Py) and isinstance(v.value, tuple)) else None
            if vals is None or len(vals) != len(items):
                self.err(node, f"this kernel returns {len(items)} values ({ann!r}), but the return gives "
                               f"{len(vals) if vals is not None else 1}", QuadrantsTypeError)
            for t, x in zip(items, vals):
                self.store_leaves(t, x, arrays, node)
            return
        arr = next(arrays)
        if isinstance(ann, VectorType):
            if not isinstance(v, Vec) or len(v.items) != arr_size(arr, self.kscope):
                self.err(node, f"this kernel returns {ann!r} here, but the value is not such a vector/matrix",
                         QuadrantsTypeError)
            for j, x in enumerate(v.items):
                self.emit(ir.Store(arr, (ir.Const(j, i32),), cast(self.commit(x, node, like=arr.dtype), arr.dtype)))
            return
        e = self.commit(v, node, like=arr.dtype)
        self.emit(ir.Store(arr, (ir.Const(0, i32),), cast(e, arr.dtype)))

    def store_result(self, ret, v, node):
        if isinstance(v, Vec):
            want = getattr(self.kscope.ret_annotation, "shape", None)  # None: a scalar result
            if want is None or tuple(want) != tuple(v.shape):
                self.err(node, f"this kernel returns {self.kscope.ret_annotation!r}, but the value is a "
                               f"{'x'.join(map(str, v.shape))} vector/matrix", QuadrantsTypeError)
            for k, x in enumerate(v.items):
                self.emit(ir.Store(ret, (ir.Const(k, i32),), cast(self.commit(x, node, like=ret.dtype), ret.dtype)))
            return
        e = self.commit(v, node, like=ret.dtype)
        self.emit(ir.Store(ret, (ir.Const(0, i32),), cast(e, ret.dtype)))


def _returns_nothing(node: ast.Return) -> bool:
    """`return` or `return None`: Python's two spellings of returning nothing."""
    return node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None)


def has_return(fdef: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function's own body (not a nested def's) has a `return` with a value."""
    todo: list[ast.AST] = list(fdef.body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return) and n.value is not None:
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def arr_size(arr: ir.ArrayArg, kscope) -> int:
    return int(kscope.implicit[arr.name].shape[0])


def _is_reference(v) -> bool:
    """A value a func hands back by reference, known when compiling: an array, a view, a struct field,
    a Python object (a `@qd.func` returning its field argument)."""
    return isinstance(v, (ir.ArrayArg, ir.SharedArray, BufView, StructArr)) or (
        isinstance(v, Py) and v.value is not None and not is_number(v))
