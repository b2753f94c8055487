"""Task IR expressions → LLVM values (one `e_<Node>` method per expression kind).

Integer `//` and `%` follow Python (floor, sign of the divisor), not C; float `!=` is unordered
so NaN != NaN holds, as in Python. Math functions live in math_lowering.py.
"""
from __future__ import annotations

from llvmlite import ir as L

from ..lang import ir
from .abi import I1, I32, I64, SHARED_PTR, lltype
from .errors import CodegenError
from .emitter_base import EmitterBase


class ExpressionEmitter(EmitterBase):
    """Mixin of the task emitter."""

    def expr(self, e):
        return getattr(self, "e_" + type(e).__name__)(e)

    def address(self, arr, indices, where: str = ""):
        b = self.b
        idx = [self.expr(i) for i in indices]
        if self.sig.debug_ptr is not None and isinstance(arr, ir.ArrayArg):
            self.check_bounds(arr, idx, self.arrays[arr.name][1], where)
        if isinstance(arr, ir.SharedArray):
            lin = idx[0]
            for k in range(1, len(idx)):
                lin = b.add(b.mul(lin, I32(arr.shape[k])), idx[k])
            g = self.shared[arr.name]
            p = b.gep(g, [I32(0), lin], inbounds=True, source_etype=g.value_type)
            p.type = SHARED_PTR  # llvmlite keeps the array's typed pointer; the element pointer is opaque
            return p
        ptr, shape = self.arrays[arr.name]
        lin = idx[0]
        for k in range(1, len(idx)):
            lin = b.add(b.mul(lin, shape[k]), idx[k])
        return b.gep(ptr, [b.sext(lin, I64)], inbounds=True, source_etype=lltype(arr.dtype))

    def e_Const(self, e):
        if e.dtype.kind == "b":
            return I1(int(e.value))
        return L.Constant(lltype(e.dtype), e.value)

    def e_ScalarArg(self, e):
        return self.scalars[e.name]

    def e_Shape(self, e):
        return self.arrays[e.array.name][1][e.axis]

    def e_LocalRef(self, e):
        return self.b.load(self.slot(e.local), typ=lltype(e.local.dtype))

    def e_Load(self, e):
        v = self.b.load(self.address(e.array, e.indices, e.where), typ=lltype(e.array.dtype))
        v.align = e.array.dtype.nbytes
        return v

    def e_Cast(self, e):
        b, src, dst = self.b, e.operand.dtype, e.dtype
        v = self.expr(e.operand)
        t = lltype(dst)
        if src.kind == "b":
            return b.uitofp(v, t) if dst.is_float else b.zext(v, t)
        if dst.kind == "b":
            return b.fcmp_unordered("!=", v, L.Constant(v.type, 0)) if src.is_float else b.icmp_unsigned("!=", v, L.Constant(v.type, 0))
        if src.is_float and dst.is_float:
            return b.fpext(v, t) if dst.bits > src.bits else b.fptrunc(v, t)
        if src.is_float:
            return b.fptosi(v, t) if dst.kind == "i" else b.fptoui(v, t)
        if dst.is_float:
            return b.sitofp(v, t) if src.kind == "i" else b.uitofp(v, t)
        if dst.bits > src.bits:
            return b.sext(v, t) if src.kind == "i" else b.zext(v, t)
        if dst.bits < src.bits:
            return b.trunc(v, t)
        return v

    def e_Select(self, e):
        return self.b.select(self.expr(e.cond), self.expr(e.a), self.expr(e.b))

    def e_Compare(self, e):
        a, c = self.expr(e.lhs), self.expr(e.rhs)
        dt = e.lhs.dtype
        if dt.is_float:
            if e.op == "!=":
                return self.b.fcmp_unordered("!=", a, c)
            return self.b.fcmp_ordered(e.op, a, c)
        if dt.kind == "i":
            return self.b.icmp_signed(e.op, a, c)
        return self.b.icmp_unsigned(e.op, a, c)

    def e_UnOp(self, e):
        b, v, dt = self.b, self.expr(e.operand), e.dtype
        if e.op == "neg":
            return b.fneg(v) if dt.is_float else b.neg(v)
        if e.op == "not":
            return b.xor(v, I1(1))
        if e.op == "bitnot":
            return b.not_(v)
        if e.op == "abs":
            if dt.is_float:
                return self.float_intrinsic("llvm.fabs", dt, [v])
            if dt.kind == "u":
                return v
            return b.select(b.icmp_signed("<", v, L.Constant(v.type, 0)), b.neg(v), v)
        raise AssertionError(e.op)

    def e_BinOp(self, e):
        b, dt, op = self.b, e.dtype, e.op
        x, y = self.expr(e.lhs), self.expr(e.rhs)
        if op in ("and", "or"):
            return b.and_(x, y) if op == "and" else b.or_(x, y)
        if dt.is_float:
            if op == "/":
                return self.fdiv(x, y, dt)  # div.approx under fast math
            if op in ("+", "-", "*"):
                return {"+": b.fadd, "-": b.fsub, "*": b.fmul}[op](x, y)
            if op == "//":
                return self.float_intrinsic("llvm.floor", dt, [b.fdiv(x, y)])
            if op == "%":
                q = self.float_intrinsic("llvm.floor", dt, [b.fdiv(x, y)])
                return b.fsub(x, b.fmul(q, y))
            if op in ("min", "max"):
                return self.float_intrinsic("llvm.minnum" if op == "min" else "llvm.maxnum", dt, [x, y])
            raise AssertionError(op)
        signed = dt.kind == "i"
        simple = {"+": b.add, "-": b.sub, "*": b.mul, "&": b.and_, "|": b.or_, "^": b.xor, "<<": b.shl}
        if op in simple:
            return simple[op](x, y)
        if op == ">>":
            return b.ashr(x, y) if signed else b.lshr(x, y)
        if op in ("min", "max"):
            cmp = (b.icmp_signed if signed else b.icmp_unsigned)("<" if op == "min" else ">", x, y)
            return b.select(cmp, x, y)
        if not signed:
            if op == "//":
                return b.udiv(x, y)
            if op == "%":
                return b.urem(x, y)
        zero = L.Constant(x.type, 0)
        if op == "//":  # Python floor division
            q, r = b.sdiv(x, y), b.srem(x, y)
            fix = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, y), zero))
            return b.sub(q, b.zext(fix, x.type))
        if op == "%":  # Python modulo: sign of the divisor
            r = b.srem(x, y)
            fix = b.and_(b.icmp_signed("!=", r, zero), b.icmp_signed("<", b.xor(r, y), zero))
            return b.select(fix, b.add(r, y), r)
        raise AssertionError(op)

    def e_AtomicRMW(self, e):
        ptr = self.address(e.array, e.indices, e.where)
        v = self.expr(e.value)
        dt = e.array.dtype
        if dt.is_float:
            if e.op == "sub":
                op, v = "fadd", self.b.fneg(v)
            else:
                op = {"add": "fadd", "min": "fmin", "max": "fmax"}[e.op]
        else:
            op = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor",
                  "min": "min" if dt.kind == "i" else "umin",
                  "max": "max" if dt.kind == "i" else "umax"}[e.op]
        return self.b.atomic_rmw(op, ptr, v, "monotonic")

    def e_SimtIndex(self, e):
        if not self.nv:
            raise CodegenError("qd.simt.block helpers are CUDA-only")
        b = self.b
        if e.what == "thread_idx":
            return self.sreg("tid.x")
        if e.what == "block_idx":
            return self.sreg("ctaid.x")
        if e.what == "block_dim":
            return self.sreg("ntid.x")
        if e.what == "grid_dim":
            return self.sreg("nctaid.x")
        return b.add(b.mul(self.sreg("ctaid.x"), self.sreg("ntid.x")), self.sreg("tid.x"))
