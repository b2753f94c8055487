"""Expression lowering: Python AST expressions → typed Task IR expressions.

Python literals stay "weak" until they meet a typed operand (Quadrants' rule: `x * 2.0` keeps
x's float type), so the frontend carries compile-time values as `Py` until it must commit.
"""
from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass

from . import intrinsics as I
from . import ir
from .types import DType, f32, f64, i32, i64, u1, u32, as_dtype, promote


@dataclass
class Py:
    """A compile-time Python value (literal, global constant, module, function)."""
    value: object


@dataclass
class ShapeTuple:
    array: ir.ArrayArg


BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
          ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
          ast.RShift: ">>"}
CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
ATOMIC_OPS = {"atomic_add": "add", "atomic_sub": "sub", "atomic_min": "min", "atomic_max": "max"}
FLOAT_ONLY_MATH = {"sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "exp", "log",
                   "tanh", "pow"}


def is_number(v) -> bool:
    return isinstance(v, Py) and isinstance(v.value, (int, float, bool))


def literal(value, like: DType | None = None) -> ir.Const:
    """Commit a Python number to a typed constant, adopting `like`'s type where it fits."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        dt = like if like is not None and like.kind in "iuf" else i32
        if dt.kind == "i" and dt.bits == 32 and not (-2**31 <= value < 2**31):
            dt = i64
        return ir.Const(float(value) if dt.is_float else value, dt)
    dt = like if like is not None and like.is_float else f32
    return ir.Const(float(value), dt)


def cast(e: ir.Expr, dt: DType) -> ir.Expr:
    if e.dtype == dt:
        return e
    if isinstance(e, ir.Const) and dt.kind != "b":
        return ir.Const(float(e.value) if dt.is_float else int(e.value), dt)
    return ir.Cast(e, dt)


def truthy(e: ir.Expr) -> ir.Expr:
    if e.dtype == u1:
        return e
    zero = ir.Const(0.0 if e.dtype.is_float else 0, e.dtype)
    return ir.Compare("!=", e, zero, u1)


class ExprLowering:
    """Mixin for `TaskBuilder`: turns AST expressions into IR, emitting statements as needed."""

    # -- helpers the builder provides: err, lookup, emit, new_local, eval_static, inline_func,
    #    in_parallel, shared_array

    def expr(self, node) -> ir.Expr:
        """Lower `node` and commit it to a typed IR expression."""
        return self.commit(self.value(node), node)

    def commit(self, v, node, like: DType | None = None) -> ir.Expr:
        if isinstance(v, ir.Expr):
            return v
        if is_number(v):
            return literal(v.value, like)
        what = "an ndarray" if isinstance(v, (ir.ArrayArg, ir.SharedArray)) else repr(getattr(v, "value", v))
        self.err(node, f"expected a scalar value here, got {what}")

    def value(self, node):
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is None:
            self.err(node, f"unsupported expression '{type(node).__name__}' in a kernel")
        return method(node)

    # ---- leaves
    def v_Constant(self, node):
        if isinstance(node.value, (int, float, bool)):
            return Py(node.value)
        if isinstance(node.value, str):
            return Py(node.value)
        self.err(node, f"unsupported constant {node.value!r}")

    def v_Name(self, node):
        return self.lookup(node.id, node)

    def v_Attribute(self, node):
        base = self.value(node.value)
        if isinstance(base, ir.ArrayArg) and node.attr == "shape":
            return ShapeTuple(base)
        if isinstance(base, ir.SharedArray) and node.attr == "shape":
            return Py(base.shape)
        if isinstance(base, Py):
            try:
                return Py(getattr(base.value, node.attr))
            except AttributeError:
                self.err(node, f"{base.value!r} has no attribute '{node.attr}'")
        self.err(node, f"attribute '.{node.attr}' is not supported on this value")

    def v_Tuple(self, node):
        items = [self.value(e) for e in node.elts]
        if all(isinstance(i, Py) for i in items):
            return Py(tuple(i.value for i in items))
        return items  # a tuple of runtime values; only valid as an assignment source

    v_List = v_Tuple

    def v_Subscript(self, node):
        base = self.value(node.value)
        idx_node = node.slice
        if isinstance(base, ShapeTuple):
            k = self.eval_static(idx_node)
            if not isinstance(k, int) or not (-base.array.ndim <= k < base.array.ndim):
                self.err(idx_node, f"shape index must be a constant in range(-{base.array.ndim}, "
                                   f"{base.array.ndim}), got {k!r}")
            return ir.Shape(base.array, k % base.array.ndim)
        if isinstance(base, (ir.ArrayArg, ir.SharedArray)):
            return ir.Load(base, self.indices(base, idx_node))
        if isinstance(base, Py):
            k = self.eval_static(idx_node)
            try:
                return Py(base.value[k])
            except Exception as e:  # noqa: BLE001 - report the Python error at the user's line
                self.err(node, f"compile-time subscript failed: {e}")
        self.err(node, "only ndarrays, shared arrays and x.shape can be subscripted in a kernel")

    def indices(self, arr, idx_node) -> tuple[ir.Expr, ...]:
        elts = idx_node.elts if isinstance(idx_node, ast.Tuple) else [idx_node]
        if len(elts) != arr.ndim:
            self.err(idx_node, f"'{arr.name}' has {arr.ndim} dimension(s) but is indexed with {len(elts)}")
        out = []
        for e in elts:
            x = self.commit(self.value(e), e, like=i32)
            if not x.dtype.is_int and x.dtype != u1:
                self.err(e, f"array index must be an integer, got {x.dtype!r}")
            out.append(cast(x, i32))
        return tuple(out)

    # ---- operators
    def v_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, f"operator {type(node.op).__name__} is not supported")
        a, b = self.value(node.left), self.value(node.right)
        if is_number(a) and is_number(b):
            return Py(_fold(op, a.value, b.value))
        return self.binop(op, a, b, node)

    def binop(self, op, a, b, node) -> ir.Expr:
        if op == "**" and is_number(b) and isinstance(b.value, int) and 0 <= b.value <= 8:
            base = self.commit(a, node)
            if b.value == 0:
                return ir.Const(1.0 if base.dtype.is_float else 1, base.dtype)
            tmp = self.new_local("pow", base.dtype, base)
            acc: ir.Expr = ir.LocalRef(tmp)
            for _ in range(b.value - 1):
                acc = ir.BinOp("*", acc, ir.LocalRef(tmp), base.dtype)
            return acc
        ea, eb = self.pair(a, b, node)
        dt = promote(ea.dtype, eb.dtype)
        if op in ("/", "**") and not dt.is_float:
            dt = f64 if dt == i64 else f32
        if op in ("&", "|", "^", "<<", ">>") and not dt.is_int:
            self.err(node, f"bitwise operator '{op}' needs integer operands, got {dt!r}")
        if op == "**":
            return ir.MathCall("pow", (cast(ea, dt), cast(eb, dt)), dt)
        return ir.BinOp(op, cast(ea, dt), cast(eb, dt), dt)

    def pair(self, a, b, node):
        if is_number(a) and not is_number(b):
            eb = self.commit(b, node)
            return literal(a.value, eb.dtype if _fits(a.value, eb.dtype) else None), eb
        if is_number(b) and not is_number(a):
            ea = self.commit(a, node)
            return ea, literal(b.value, ea.dtype if _fits(b.value, ea.dtype) else None)
        return self.commit(a, node), self.commit(b, node)

    def v_UnaryOp(self, node):
        v = self.value(node.operand)
        if is_number(v):
            return Py({ast.USub: lambda x: -x, ast.UAdd: lambda x: x, ast.Not: lambda x: not x,
                       ast.Invert: lambda x: ~x}[type(node.op)](v.value))
        e = self.commit(v, node)
        if isinstance(node.op, ast.USub):
            return ir.UnOp("neg", e, e.dtype)
        if isinstance(node.op, ast.UAdd):
            return e
        if isinstance(node.op, ast.Not):
            return ir.UnOp("not", truthy(e), u1)
        if not e.dtype.is_int:
            self.err(node, "'~' needs an integer operand")
        return ir.UnOp("bitnot", e, e.dtype)

    def v_Compare(self, node):
        result = None
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            opname = CMPOPS.get(type(op))
            if opname is None:
                self.err(node, f"comparison '{type(op).__name__}' is not supported in kernels")
            right = self.value(right_node)
            if is_number(left) and is_number(right):
                c = Py(eval(f"a {opname} b", {}, {"a": left.value, "b": right.value}))  # noqa: S307
                c = ir.Const(int(c.value), u1)
            else:
                ea, eb = self.pair(left, right, node)
                dt = promote(ea.dtype, eb.dtype)
                c = ir.Compare(opname, cast(ea, dt), cast(eb, dt), u1)
            result = c if result is None else ir.BinOp("and", result, c, u1)
            left = right
        return result

    def v_BoolOp(self, node):
        vals = [self.value(v) for v in node.values]
        if all(is_number(v) for v in vals):
            r = vals[0].value
            for v in vals[1:]:
                r = (r and v.value) if isinstance(node.op, ast.And) else (r or v.value)
            return Py(r)
        op = "and" if isinstance(node.op, ast.And) else "or"
        acc = truthy(self.commit(vals[0], node))
        for v in vals[1:]:
            acc = ir.BinOp(op, acc, truthy(self.commit(v, node)), u1)
        return acc

    def v_IfExp(self, node):
        c = self.value(node.test)
        if is_number(c):
            return self.value(node.body if c.value else node.orelse)
        a, b = self.pair(self.value(node.body), self.value(node.orelse), node)
        dt = promote(a.dtype, b.dtype)
        return ir.Select(truthy(self.commit(c, node)), cast(a, dt), cast(b, dt), dt)

    # ---- calls
    def v_Call(self, node):
        fn = self.value(node.func)
        if not isinstance(fn, Py):
            self.err(node, "only qd functions, @qd.func functions and builtins can be called in a kernel")
        f = fn.value
        from .kernel import Func, Kernel  # late: kernel.py imports the frontend
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

    def intrinsic(self, f: I.Intrinsic, node):
        if f.kind == "math":
            args = [self.value(a) for a in node.args]
            if len(args) != (f.nargs or 1):
                self.err(node, f"qd.{f.name}() takes {f.nargs or 1} argument(s)")
            if all(is_number(a) for a in args):
                return Py(f(*[a.value for a in args]))
            es = [self.commit(a, node) for a in args]
            if len(es) == 2:
                es = list(self.pair(*args, node))
            dt = es[0].dtype if len(es) == 1 else promote(es[0].dtype, es[1].dtype)
            if f.name in FLOAT_ONLY_MATH and not dt.is_float:
                dt = f64 if dt == i64 else f32
            if f.name in ("floor", "ceil", "round") and not dt.is_float:
                return es[0]
            return ir.MathCall(f.name, tuple(cast(e, dt) for e in es), dt)
        if f.kind == "atomic":
            if len(node.args) != 2:
                self.err(node, f"qd.{f.name}(x[i], value) takes two arguments")
            target = node.args[0]
            if not isinstance(target, ast.Subscript):
                self.err(target, f"qd.{f.name}'s first argument must be an array element like x[i]")
            arr = self.value(target.value)
            if not isinstance(arr, (ir.ArrayArg, ir.SharedArray)):
                self.err(target, f"qd.{f.name} needs an ndarray or shared-array element")
            idx = self.indices(arr, target.slice)
            val = cast(self.commit(self.value(node.args[1]), node, like=arr.dtype), arr.dtype)
            return ir.AtomicRMW(ATOMIC_OPS[f.name], arr, idx, val)
        if f.kind == "simt":
            self.require_block_features(node, f"qd.simt.block.{f.name}()")
            return ir.SimtIndex(f.name)
        if f.kind == "barrier":
            self.require_block_features(node, f"qd.simt.block.{f.name}()")
            self.emit(ir.Barrier())
            return Py(None)
        if f.kind == "shared":
            self.require_block_features(node, "qd.simt.block.SharedArray")
            if len(node.args) != 2:
                self.err(node, "SharedArray(shape, dtype) takes two arguments")
            shape = self.eval_static(node.args[0])
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            dt = as_dtype(self.eval_static(node.args[1]))
            if dt is None or not shape or not all(isinstance(s, int) and s > 0 for s in shape):
                self.err(node, "SharedArray needs a constant positive shape and a qd dtype")
            return self.shared_array(shape, dt)
        self.err(node, f"qd.{f.name}() is not supported here")


def _fits(value, dt: DType) -> bool:
    if isinstance(value, float):
        return dt.is_float
    return dt.kind in "iuf"


def _fold(op, a, b):
    try:
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
                "//": lambda: a // b, "%": lambda: a % b, "**": lambda: a ** b, "&": lambda: a & b,
                "|": lambda: a | b, "^": lambda: a ^ b, "<<": lambda: a << b, ">>": lambda: a >> b}[op]()
    except ZeroDivisionError:
        raise ZeroDivisionError("division by zero in a compile-time constant") from None


__all__ = ["ExprLowering", "Py", "ShapeTuple", "cast", "truthy", "literal", "is_number", "u32"]
