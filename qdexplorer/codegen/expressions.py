"""Task IR expressions → LLVM values (one `e_<Node>` method per expression kind).

Integer `//` and `%` follow Python (floor, sign of the divisor), not C; float `!=` is unordered
so NaN != NaN holds, as in Python. Math functions live in math_lowering.py.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir as L

from .. import ir
from .abi import I1, I32, I64, PTR, SHARED_PTR, lltype
from .errors import CodegenError
from .emitter_base import EmitterBase


def reciprocal(c: float, bits: int) -> float:
    """1 / c rounded to the operand's type: under fast math (Quadrants' default) Quadrants rewrites
    `a / c` of a float constant as `a * (1 / c)` (its alg_simp pass, on every backend), which rounds
    differently from a division in about a third of cases (x / 3.0: 1,376 of 4,096 values)."""
    return float(np.float32(1) / np.float32(c)) if bits == 32 else 1.0 / float(c)


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
        if isinstance(arr, ir.LocalArray):
            slot = self.local_arrays.get(arr.name)
            if slot is None:
                slot = self.local_arrays[arr.name] = self.alloca_b.alloca(
                    L.ArrayType(lltype(arr.dtype), arr.size), name=arr.name)
            p = b.gep(slot, [I32(0), idx[0]], inbounds=True, source_etype=slot.allocated_type)
            p.type = PTR  # as for shared arrays: the element pointer is opaque
            return p
        ptr, shape = self.arrays[arr.name]
        lin = self.linear(arr, idx, shape)
        lin = lin if lin.type == I64 else b.sext(lin, I64)
        return b.gep(ptr, [lin], inbounds=True, source_etype=lltype(arr.dtype))

    def linear(self, arr, idx: list, shape: list):
        """The element offset of index `idx` in an array of `shape`: row-major, over the axes in the
        order `arr.layout` gives them in memory (a field nested out of axis order), the element's
        own components last."""
        b = self.b
        order = ir.memory_axes(arr.layout, len(idx))
        if arr.name in self.wide:  # 2^31 elements or more (a lazily reserved sparse tree): 64-bit offsets
            idx = [i if i.type == I64 else b.sext(i, I64) for i in idx]
            shape = [d if d.type == I64 else b.zext(d, I64) for d in shape]
        e = self.elem_ndim.get(arr.name, 0)
        if e and not self.nv and arr.name not in self.wide and len(order) > e \
                and all(isinstance(d, L.Constant) for d in shape[-e:]):
            # Quadrants' layout of a vector field: the cell's index in 32 bits, then its component
            # offset in 64 (a cell pointer, then the component's within it); one i32 offset wrapped
            # in sext per component made LLVM's vectorizer pick another width (imgproc_gaussian_filter)
            lin = idx[order[0]]
            for k in order[1:-e]:
                lin = b.add(b.mul(lin, shape[k]), idx[k])
            lin = b.sext(lin, I64)
            for k in order[-e:]:
                comp = idx[k] if idx[k].type == I64 else b.sext(idx[k], I64)
                lin = b.add(b.mul(lin, I64(shape[k].constant), flags=["nsw"]), comp)
            return lin
        lin = idx[order[0]]
        for k in order[1:]:
            lin = b.add(b.mul(lin, shape[k]), idx[k])
        return lin

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
        pre = self.preloaded
        if pre is not None and e in pre:   # issued ahead, with the coarsened step's other loads (schedule.py)
            return pre[e]
        if e.reuse:
            return self.reused_load(e)
        v = self.b.load(self.address(e.array, e.indices, e.where), typ=lltype(e.array.dtype))
        v.align = e.array.dtype.nbytes
        return v

    def reused_load(self, e):
        """A load Quadrants merges with an earlier one of the same element (alg_simp.py marks both)."""
        def load():
            v = self.b.load(self.address(e.array, e.indices, e.where), typ=lltype(e.array.dtype))
            v.align = e.array.dtype.nbytes
            return v
        return self.reused(e.reuse, lltype(e.array.dtype), load, "ld")

    def reused(self, reuse: tuple, t, compute, prefix: str):
        """A value Quadrants computes once where ours has it twice (alg_simp.py marks them): the first
        keeps it in a slot, the later ones read it there (mem2reg makes it the first one's value, at
        its place); one whose first was folded away, or never emitted, computes it on its own."""
        kind, k = reuse
        slots = self.__dict__.setdefault("_reuse_slots", {})
        done = self.__dict__.setdefault("_reuse_done", set())
        if kind == "use" and k in done:
            return self.b.load(slots[k], typ=t)
        v = compute()
        if kind == "def":
            slot = slots.get(k)
            if slot is None:
                slot = slots[k] = self.alloca_b.alloca(t, name=f"{prefix}{k}")
            self.b.store(v, slot)
            done.add(k)
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
            if dst.bits > src.bits:
                return b.fpext(v, t)
            if src.bits == 64 and dst.bits == 16:
                # through f32, as Quadrants does (its f16 casts go through f32: 1 + 2**-11 + 2**-40 is
                # 1.0, not 1.001); a direct fptrunc is a call to __truncdfhf2 on the host, which this
                # process does not have, and the jitted call crashed the kernel
                v = b.fptrunc(v, L.FloatType())
            return b.fptrunc(v, t)
        if src.is_float:
            return b.fptosi(v, t) if dst.kind == "i" else b.fptoui(v, t)
        if dst.is_float:
            return b.sitofp(v, t) if src.kind == "i" else b.uitofp(v, t)
        if dst.bits > src.bits:
            return b.sext(v, t) if src.kind == "i" else b.zext(v, t)
        if dst.bits < src.bits:
            return b.trunc(v, t)
        return v

    def e_Seq(self, e):
        vals = [self.expr(x) for x in e.items]
        return vals[e.pick]

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
        if e.op == "bitcast":  # qd.bit_cast: the same bits as another type of the same width
            return b.bitcast(v, lltype(dt))
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
                if self.o.fast_math and isinstance(e.rhs, ir.Const) and e.rhs.value != 0 and dt.bits in (32, 64):
                    return b.fmul(x, L.Constant(x.type, reciprocal(e.rhs.value, dt.bits)), flags=self.contract)
                return self.fdiv(x, y, dt)  # div.approx under fast math
            if op in ("+", "-", "*"):
                return {"+": b.fadd, "-": b.fsub, "*": b.fmul}[op](x, y, flags=self.contract)
            if op == "//":
                return self.float_intrinsic("llvm.floor", dt, [b.fdiv(x, y)])
            if op == "%":
                q = self.float_intrinsic("llvm.floor", dt, [b.fdiv(x, y)])
                return b.fsub(x, b.fmul(q, y))
            if op == "rmod":  # qd.raw_mod: C's fmod
                return b.frem(x, y)
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
        if op in ("rdiv", "rmod"):  # qd.raw_div / qd.raw_mod: C's truncating / and %
            return (b.sdiv if signed else b.udiv)(x, y) if op == "rdiv" else (b.srem if signed else b.urem)(x, y)
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
        if e.op == "xchg":  # qd.atomic_exchange
            return self.b.atomic_rmw("xchg", ptr, v, "monotonic")
        if e.op == "cas":   # qd.atomic_cas(x, expected, desired) on integers: the old value
            return self.b.extract_value(self.b.cmpxchg(ptr, self.expr(e.expected), v, "monotonic", "monotonic"), 0)
        if e.op == "mul":   # qd.atomic_mul: no atomicrmw multiplies, so a compare-and-swap loop
            return self.atomic_cas_loop(ptr, v, dt)
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

    def atomic_cas_loop(self, ptr, v, dt):
        """`*ptr *= v` atomically: read, multiply, cmpxchg until no other thread wrote in between (floats
        through their integer bits, as cmpxchg takes integers); the old value is the result."""
        b = self.b
        vty = lltype(dt)
        ity = L.IntType(dt.bits) if dt.is_float else vty
        first = b.load(ptr, typ=ity)
        head, loop = b.block, b.append_basic_block("cas.loop")
        done = b.append_basic_block("cas.done")
        b.branch(loop)
        b.position_at_end(loop)
        cur = b.phi(ity)
        cur.add_incoming(first, head)
        cur_v = b.bitcast(cur, vty) if dt.is_float else cur
        new_v = b.fmul(cur_v, v) if dt.is_float else b.mul(cur_v, v)
        new = b.bitcast(new_v, ity) if dt.is_float else new_v
        pair = b.cmpxchg(ptr, cur, new, "monotonic", "monotonic")
        seen, ok = b.extract_value(pair, 0), b.extract_value(pair, 1)
        cur.add_incoming(seen, b.block)
        b.cbranch(ok, done, loop)
        b.position_at_end(done)
        return b.bitcast(cur, vty) if dt.is_float else cur

    def atomic_reduce(self, e):
        """An atomic whose old value nobody reads. On CUDA, into a global array, it is a PTX `red`
        (fire and forget: the thread does not wait for the value to come back) rather than `atom`
        with a dead destination, which leaves the choice to ptxas; elsewhere a plain atomicrmw."""
        form = RED_OPS.get((e.op if e.op != "sub" else "add", e.array.dtype.name)) if self.nv else None
        if form is None or not isinstance(e.array, ir.ArrayArg) or self.sig.debug_ptr is not None:
            self.expr(e)
            return
        ptr = self.address(e.array, e.indices, e.where)
        v = self.expr(e.value)
        if e.op == "sub":
            v = self.b.fneg(v) if e.array.dtype.is_float else self.b.neg(v)
        gptr = self.b.addrspacecast(ptr, L.PointerType(addrspace=1))
        suffix, reg = form
        # a memory clobber keeps this thread's other accesses of the array on their side of the
        # red; an array the task only updates this way needs none, and then the loads feeding the
        # reds may still merge (ld.global.nc.v4 under coarsening)
        clobber = "" if e.array.name in scatter_only(self.t) else ",~{memory}"
        asm = L.InlineAsm(L.FunctionType(L.VoidType(), [gptr.type, v.type]),
                          f"red.global.{suffix} [$0], $1;", f"l,{reg}{clobber}", side_effect=True)
        self.b.call(asm, [gptr, v])

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


# (op, element type) -> (PTX `red` suffix, inline-asm register class) for the reductions PTX has on
# every target we compile for (sm_60+); other combinations (8/16-bit, float min/max) stay atomicrmw
RED_OPS: dict[tuple[str, str], tuple[str, str]] = {
    ("add", "i32"): ("add.u32", "r"), ("add", "u32"): ("add.u32", "r"),
    ("add", "i64"): ("add.u64", "l"), ("add", "u64"): ("add.u64", "l"),
    ("add", "f32"): ("add.f32", "f"), ("add", "f64"): ("add.f64", "d"),
    ("min", "i32"): ("min.s32", "r"), ("min", "u32"): ("min.u32", "r"),
    ("max", "i32"): ("max.s32", "r"), ("max", "u32"): ("max.u32", "r"),
    ("min", "i64"): ("min.s64", "l"), ("min", "u64"): ("min.u64", "l"),
    ("max", "i64"): ("max.s64", "l"), ("max", "u64"): ("max.u64", "l"),
    ("and", "i32"): ("and.b32", "r"), ("and", "u32"): ("and.b32", "r"),
    ("or", "i32"): ("or.b32", "r"), ("or", "u32"): ("or.b32", "r"),
    ("xor", "i32"): ("xor.b32", "r"), ("xor", "u32"): ("xor.b32", "r"),
    ("and", "i64"): ("and.b64", "l"), ("and", "u64"): ("and.b64", "l"),
    ("or", "i64"): ("or.b64", "l"), ("or", "u64"): ("or.b64", "l"),
    ("xor", "i64"): ("xor.b64", "l"), ("xor", "u64"): ("xor.b64", "l"),
}


def scatter_only(task: ir.Task) -> frozenset:
    """Arrays the task touches only through atomics whose result is unused (walked once a task)."""
    cached = task.__dict__.get("_scatter_only")
    if cached is None:
        unused = {id(n.value) for n in ir.walk(task.body)
                  if isinstance(n, ir.ExprStmt) and isinstance(n.value, ir.AtomicRMW)}
        names: set[str] = set()
        other: set[str] = set()
        for n in ir.walk([task.body, task.ranges]):
            if isinstance(n, (ir.Load, ir.Store, ir.AtomicRMW)) and isinstance(n.array, ir.ArrayArg):
                (names if id(n) in unused else other).add(n.array.name)
        cached = task.__dict__["_scatter_only"] = frozenset(names - other)
    return cached
