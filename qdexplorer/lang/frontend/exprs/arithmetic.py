"""Arithmetic in a kernel: binary and unary operators, with Quadrants' typing rules.

Constants fold in Python; otherwise the operands are promoted as Quadrants promotes them, and the
corner cases follow it too: integer `**`, `x ** c` rewritten as its simplifier does, f16 computed in
f32 and rounded, u1 arithmetic in one bit, and debug mode's overflow and negative-exponent checks.
"""
from __future__ import annotations

import ast
from typing import Any

from ... import intrinsics as I
from .... import ir
from ...calls import runtime_api
from ....ir.errors import QuadrantsTypeError
from ....ir.dtypes import DType, f16, f32, f64, i32, i64, int_range, u1, promote
from ..values import BINOPS, Py, StructArr, Vec, cast, default_types, fold, is_number, operand_literal, truthy
from ..vectors import components
from ..base import LoweringBase, Value


_OVERFLOW = ("+", "-", "*", "<<")  # the integer operations debug mode checks for overflow, as Quadrants


class ArithmeticLowering(LoweringBase):
    """`v_BinOp`, `v_UnaryOp`, and `binop` / `pair`, which every mixin's arithmetic goes through."""

    def v_BinOp(self, node):
        op = BINOPS.get(type(node.op))
        if op is None:
            self.err(node, f"operator {type(node.op).__name__} is not supported")
        a, b = self.value(node.left), self.value(node.right)
        if is_number(a) and is_number(b) and op != "@":
            return Py(fold(op, a.value, b.value))
        sa, sb = _py_seq(a), _py_seq(b)  # `[0.0] * 3`, `[a, b] + [c]`: Python's list operators, as in Quadrants
        if op == "*" and (sa is None) != (sb is None) and is_number(b if sb is None else a) and \
                isinstance((b if sb is None else a).value, int):
            items = (sa if sb is None else sb) * (b if sb is None else a).value
        elif op == "+" and sa is not None and sb is not None:
            items = sa + sb
        else:
            return self.binop(op, a, b, node)
        return Py(tuple(x.value for x in items)) if all(isinstance(x, Py) for x in items) else items

    def check_negative_exponent(self, exp: ir.Expr, node) -> None:
        """Quadrants' debug mode raises QuadrantsRuntimeError for `int ** negative int` (the result
        would not be an integer); the call fails the way a failed assert does."""
        e = self.commit(exp, node)
        site = self.kscope.check_site(self.frame.src, node, "Negative exponent in pow(int, int) is not allowed")
        flag = self.kscope.assert_flag()
        self.emit(ir.If(ir.Compare("<", e, ir.Const(0, e.dtype), u1),
                        [ir.Store(flag, (ir.Const(0, i32),), ir.Const(site, i32))], []))

    def weakened_pow(self, base: ir.Expr, n: float, dt: DType, node) -> Value | None:
        """`x ** c` for a constant c, as Quadrants' algebraic simplifier rewrites it before anything
        else sees it (so before autodiff too): c = 1 is x, 0 is 1, 0.5 is sqrt(x), a whole c in
        [1, 32] is exponentiation by squaring (x * (x * x) for 3, (x * x) * (x * x) for 4), -c is 1 /
        that; None for any other c. Each power is a local, as each is one statement there, so that
        reverse mode sums its adjoints in Quadrants' order."""
        n = float(n)
        if n == 0.5:
            return self.apply_math(I.sqrt, [cast(base, dt)], node)
        if n != round(n) or abs(n) > 32:
            return None
        if n == 0:
            return ir.Const(1.0, dt)
        k, bit, result = int(abs(n)), 1, None
        base = cast(base, dt)
        # the base itself where it is a variable already (its adjoint then takes each product's share
        # in turn, as Quadrants' base statement does), else computed once into a local
        p: Value = base if isinstance(base, (ir.LocalRef, ir.Const)) else ir.LocalRef(self.new_local("pow", dt, base))
        while True:
            if k & bit:
                result = p if result is None else ir.LocalRef(self.new_local(
                    "pow", dt, self.commit(self.binop("*", result, p, node), node)))
            bit <<= 1
            if bit > k:
                break
            p = ir.LocalRef(self.new_local("pow", dt, self.commit(self.binop("*", p, p, node), node)))
        return result if n > 0 else self.binop("/", ir.Const(1.0, dt), result, node)

    def binop(self, op, a, b, node) -> Value:
        if isinstance(a, (ir.ArrayArg, StructArr)) or isinstance(b, (ir.ArrayArg, StructArr)):
            self.err(node, f"unsupported operand type(s) for {op}: a whole field or ndarray is not a value in a "
                           f"kernel; index it (x[i], x[None] for a 0-d one)", QuadrantsTypeError)
        if isinstance(a, Vec) != isinstance(b, Vec):  # v + [x, y, z]: the list is a vector, as in Quadrants
            a, b = (_as_vec(x) if isinstance(x, list) or (isinstance(x, Py) and isinstance(x.value, (list, tuple)))
                    else x for x in (a, b))
        if isinstance(a, Vec) or isinstance(b, Vec) or op == "@":
            return self.vec_binop(op, a, b, node)
        ea, eb = self.pair(a, b, node)
        if ea.dtype == u1 and (eb.dtype == u1 or op in ("<<", ">>")) and op in ("+", "-", "*", "<<", ">>"):
            # u1 op u1 is a u1 in Quadrants (a comparison's type), computed in one bit: (a < b) + (b < c) is 0
            # when both hold, (a < b) - (b < c) is 1 when just one does, (a < b) << 1 is 0
            wide = ir.BinOp(op, cast(ea, i32), cast(eb, i32), i32)
            return ir.Compare("!=", ir.BinOp("&", wide, ir.Const(1, i32), i32), ir.Const(0, i32), u1)
        dt = promote(ea.dtype, eb.dtype)
        if op in ("<<", ">>") and ea.dtype.is_int and eb.dtype.is_int:
            dt = ea.dtype  # a shift keeps its left operand's type in Quadrants: u8(255) << 4 is 240
        if op == "**" and eb.dtype.is_int and (ea.dtype.is_int or ea.dtype.is_float):
            dt = ea.dtype  # an integral exponent keeps the base's type (qd.pow's rule): u8(9) ** 4 is 161
        if op == "**" and dt.is_int:  # integer ** integer stays an integer, as in Quadrants (never via float)
            if runtime_api.debug() and eb.dtype.kind == "i":
                self.check_negative_exponent(cast(eb, dt), node)
            ex = eb
            if eb.dtype.kind == "i" and not (isinstance(eb, ir.Const) and eb.value >= 0):
                # Quadrants 1.3.3 on the CPU (no debug): a negative exponent counts by its magnitude,
                # 9 ** -4 is 6561 and 2 ** -1 is 2 (its docs say 1; the compiled code squares |e| times)
                ex = ir.UnOp("abs", eb, eb.dtype)
            return ir.MathCall("ipow", (cast(ea, dt), cast(ex, dt)), dt)
        if op in ("/", "**") and not dt.is_float:  # integers divide in qd.init's default_fp, as Quadrants
            dt = f64 if dt == i64 else default_types()[1]
        if op == "**":
            n = b.value if is_number(b) else eb.value if isinstance(eb, ir.Const) else None
            weak = self.weakened_pow(ea, n, dt, node) if isinstance(n, (int, float)) else None
            if weak is not None:
                return weak
            if is_number(b) and isinstance(b.value, int) and not isinstance(b.value, bool):
                eb = ir.Const(b.value, i32 if -2**31 <= b.value < 2**31 else i64)  # a literal stays an integer
            if eb.dtype.is_int:  # Quadrants' demote_operations: a loop of squarings, 1 / it for a negative one
                return ir.MathCall("fipow", (cast(ea, dt), eb), dt)
        if op in ("&", "|", "^", "<<", ">>") and not dt.is_int:
            self.err(node, f"unsupported operand type(s) for '{op}': '{ea.dtype.name}' and '{eb.dtype.name}' "
                           f"(bitwise operator '{op}' needs integer operands, got {dt!r})", QuadrantsTypeError)
        if dt == f16:  # half precision is a storage type: compute in f32, round the result, as GPUs do;
            # an integer operand becomes an f16 first, as in Quadrants (u16 60149 is 60160 in f16, and
            # 60160 - 15.25 rounds to 60160; through f32 alone it was 60128)
            wa, wb = cast(cast(ea, f16), f32), cast(cast(eb, f16), f32)
            if op in ("//", "%"):
                return self.half_floor_div_mod(op, wa, wb, node)
            return cast(self.binop(op, wa, wb, node), f16)
        if op == "**":
            return ir.MathCall("pow", (cast(ea, dt), cast(eb, dt)), dt)
        if op in _OVERFLOW and dt.is_int and dt != u1 and runtime_api.debug():
            return self.checked_int_op(op, cast(ea, dt), cast(eb, dt), dt, node)
        return ir.BinOp(op, cast(ea, dt), cast(eb, dt), dt)

    def half_floor_div_mod(self, op, wa, wb, node) -> ir.Expr:
        """f16 `//` and `%` as Quadrants computes them, each step rounded to f16: a // b is
        floor(f16(a / b)) (50880 // 38 is 1339, not 1338), a % b is f16(a - f16(b * (a // b)))."""
        la = ir.LocalRef(self.new_local("h", f32, wa))
        lb = ir.LocalRef(self.new_local("h", f32, wb))
        quot = cast(cast(self.binop("/", la, lb, node), f16), f32)
        floor = cast(self.binop("//", quot, ir.Const(1.0, f32), node), f16)  # floor(q / 1) is floor(q)
        if op == "//":
            return floor
        prod = cast(cast(self.binop("*", lb, cast(floor, f32), node), f16), f32)
        return cast(self.binop("-", la, prod, node), f16)

    def checked_int_op(self, op: str, a: ir.Expr, b: ir.Expr, dt, node) -> ir.Expr:
        """Debug mode, as Quadrants: an integer `+ - * <<` that overflows its type prints
        "Addition overflow detected in File ..., line N, in f:" with the line, and the kernel goes on
        with the wrapped value."""
        def held(e: ir.Expr, name: str) -> ir.Expr:
            return e if isinstance(e, (ir.Const, ir.LocalRef, ir.ScalarArg)) else ir.LocalRef(self.new_local(name, dt, e))
        a, b = held(a, "ova"), held(b, "ovb")
        r = ir.LocalRef(self.new_local("ovr", dt, ir.BinOp(op, a, b, dt)))
        signed, zero = dt.kind == "i", ir.Const(0, dt)

        def cmp(o, x, y):
            return ir.Compare(o, x, y, u1)

        def both(x, y):
            return ir.BinOp("and", x, y, u1)
        if op == "+":
            bad = cmp("<", ir.BinOp("&", ir.BinOp("^", r, a, dt), ir.BinOp("^", r, b, dt), dt), zero) if signed \
                else cmp("<", r, a)
        elif op == "-":
            bad = cmp("<", ir.BinOp("&", ir.BinOp("^", a, b, dt), ir.BinOp("^", a, r, dt), dt), zero) if signed \
                else cmp("<", a, b)
        elif op == "*":  # r / a != b, with a = 0 (never overflows) and, signed, a = -1 (only b = MIN) apart
            minus1 = cmp("==", a, ir.Const(-1, dt)) if signed else ir.Const(0, u1)
            unsafe = ir.BinOp("or", cmp("==", a, zero), minus1, u1)
            safe_a = ir.Select(unsafe, ir.Const(1, dt), a, dt)
            wrong = cmp("!=", ir.BinOp("//", r, safe_a, dt), b)
            at_min = cmp("==", b, ir.Const(int_range(dt)[0], dt)) if signed else ir.Const(0, u1)
            bad = both(cmp("!=", a, zero), ir.Select(minus1, at_min, wrong, u1))
        else:  # <<: shifting back does not give the operand
            bad = cmp("!=", ir.BinOp(">>", r, b, dt), a)
        file, line, col, text = self.frame.src.where(node)
        end = getattr(node, "end_col_offset", None)
        span = max((end - getattr(node, "col_offset", 0)) if end is not None and getattr(node, "end_lineno", None)
                   == getattr(node, "lineno", None) else 1, 1)
        fn = getattr(self.frame.src.fn, "__name__", self.kernel_name)
        what = {"+": "Addition", "-": "Subtraction", "*": "Multiplication", "<<": "Shift left"}[op]
        msg = (f'{what} overflow detected in File "{file}", line {line}, in {fn}:\n{text.rstrip()}\n'
               f"{' ' * col}{'^' * span}\n\n")
        self.emit(ir.If(bad, [ir.Print((msg,))], []))
        return r

    def pair(self, a, b, node):
        if is_number(a) and not is_number(b):
            eb = self.commit(b, node)
            return operand_literal(a.value, eb.dtype), eb
        if is_number(b) and not is_number(a):
            ea = self.commit(a, node)
            return ea, operand_literal(b.value, ea.dtype)
        return self.commit(a, node), self.commit(b, node)

    def v_UnaryOp(self, node):
        v = self.value(node.operand)
        if isinstance(v, Vec):
            return Vec([self.unary(node, x) for x in v.items], v.shape)
        return self.unary(node, v)

    def unary(self, node, v):
        if is_number(v):
            return Py({ast.USub: lambda x: -x, ast.UAdd: lambda x: x, ast.Not: lambda x: not x,
                       ast.Invert: lambda x: ~x}[type(node.op)](v.value))
        e = self.commit(v, node)
        if e.dtype == u1 and isinstance(node.op, (ast.USub, ast.Invert)):  # one bit: -p is p, ~p is not p
            return e if isinstance(node.op, ast.USub) else ir.UnOp("not", e, u1)
        if isinstance(node.op, ast.USub):
            return ir.UnOp("neg", e, e.dtype)
        if isinstance(node.op, ast.UAdd):
            return e
        if isinstance(node.op, ast.Not):
            if e.dtype.is_float:  # Quadrants' logical_not is integral-only (`not 1.0` is a type error)
                self.err(node, f"'not' (logical_not) takes integral inputs only, got {e.dtype!r}", QuadrantsTypeError)
            return ir.UnOp("not", truthy(e), u1)
        if not e.dtype.is_int:
            self.err(node, f"'~' (bit_not) takes integral inputs only, got {e.dtype!r}", QuadrantsTypeError)
        return ir.UnOp("bitnot", e, e.dtype)


def _py_seq(x) -> list | None:
    """The items of a Python list or tuple value in a kernel (constant or not), else None."""
    if isinstance(x, list):
        return x
    if isinstance(x, Py) and isinstance(x.value, (list, tuple)):
        return [Py(v) for v in x.value]
    return None


def _as_vec(x) -> Vec:
    """A list or tuple of values as a vector (a list of rows as a matrix)."""
    rows: Any = x.value if isinstance(x, Py) else x
    items = components(x)
    if rows and all(isinstance(r, (list, tuple)) for r in rows) and len(items) == len(rows) * len(rows[0]):
        return Vec(items, (len(rows), len(rows[0])))
    return Vec(items)
