"""`qd.math` calls → LLVM: intrinsics everywhere, libdevice on CUDA, libm on the host.

With fast math on CUDA, f32 sin/cos/exp/log/rsqrt/sqrt use the approximate instructions
(fast_math.py). Without libdevice a few f32 functions fall back to `afn` approximations (sin.approx,
ex2.approx, lg2.approx) and the compile log says so once per task. Tables and the libdevice
search are in math_lib.py.
"""
from __future__ import annotations

from llvmlite import ir as L

from .. import ir
from . import math_lib
from .abi import I32, lltype
from .errors import CodegenError
from .fast_math import APPROX, FastMathEmitter


# libdevice's f32 sin/cos reduce |x| < 105615 with three fmas and take Payne-Hanek's reduction (a loop
# over a 7-word array in local memory) beyond; that slow path is most of their code and all of their
# stack. Called behind `|x| < 105615` the inlined copy loses it (the compare is the one inside, so
# LLVM folds it), and the rare large argument calls one shared non-inlined copy: the same bits, no
# local memory in the kernel. Measured on the H200 (kernel_suite, accurate sin·exp 2^26): 0.1921 ms
# against torch.compile's 0.1985 (the same libdevice functions, the same 10.8 ulp at most).
OUTLINED = {"__nv_sinf", "__nv_cosf"}
TRIG_FAST_LIMIT = 105615.0


def calls_libdevice(task: ir.Task, fast: bool) -> bool:
    """Whether the task's CUDA module will call libdevice (an `__nv_*` function body inlined)."""
    return any(isinstance(n, ir.MathCall) and n.fn in math_lib.LIB and
               not (fast and n.dtype.bits == 32 and n.fn in APPROX) for n in ir.walk(task.body))


class MathEmitter(FastMathEmitter):
    """Mixin of the task emitter; fast_math.py holds the approximate forms."""

    def float_intrinsic(self, base, dt, args):
        t = lltype(dt)
        f = self.intrinsic(f"{base}.f{dt.bits}", t, [t] * len(args))
        return self.b.call(f, args)

    def e_MathCall(self, e):
        if e.reuse:   # one call in Quadrants (its CSE), two in ours (codegen/alg_simp.py)
            return self.reused(e.reuse, lltype(e.dtype), lambda: self.math_call(e), "mc")
        return self.math_call(e)

    def math_call(self, e):
        dt, args = e.dtype, [self.expr(a) for a in e.args]
        if e.fn == "ipow":
            return self.int_pow(*args)
        if e.fn == "fipow":
            return self.float_int_pow(*args)
        if e.fn == "clock":  # qd.clock_counter(): the SM's clock64 on CUDA, the CPU's cycle counter on the host
            name = "llvm.nvvm.read.ptx.sreg.clock64" if self.nv else "llvm.readcyclecounter"
            return self.b.call(self.intrinsic(name, L.IntType(64), []), [])
        if e.fn in ("popcnt", "clz", "ffs"):
            return self.bit_count(e.fn, args[0])
        if self.fast and dt.bits == 32 and e.fn in APPROX:
            return self.fast_call(e.fn, args)
        if e.fn in math_lib.INTRINSIC:
            return self.float_intrinsic(math_lib.INTRINSIC[e.fn], dt, args)
        if e.fn == "rsqrt":
            return self.b.fdiv(L.Constant(lltype(dt), 1.0), self.float_intrinsic("llvm.sqrt", dt, args))
        nv32, nv64, c32, c64 = math_lib.LIB[e.fn]
        t = lltype(dt)
        if not self.nv:
            name = c32 if dt.bits == 32 else c64
        elif self.o.libdevice:
            name = nv32 if dt.bits == 32 else nv64
            self.needs_libdevice = True
        else:
            return self.approx(e.fn, dt, args)
        f = self.intrinsic(name, t, [t] * len(args))
        if self.nv and name in OUTLINED:
            return self.trig_outlined(f, args[0])
        return self.b.call(f, args)

    def trig_outlined(self, f, x):
        """libdevice's sinf/cosf inlined for |x| < 105615, one out-of-line call beyond (OUTLINED)."""
        b, f32t = self.b, L.FloatType()
        slow_fn = self.m.globals.get(f"qdx.{f.name}.slow")
        if slow_fn is None:
            slow_fn = L.Function(self.m, L.FunctionType(f32t, [f32t]), f"qdx.{f.name}.slow")
            slow_fn.linkage = "internal"
            slow_fn.attributes.add("noinline")
            sb = L.IRBuilder(slow_fn.append_basic_block("entry"))
            sb.ret(sb.call(f, [slow_fn.args[0]]))
        ax = b.call(self.intrinsic("llvm.nvvm.fabs.f32", f32t, [f32t]), [x])  # libdevice's own, so the compares fold
        small = b.fcmp_unordered("<", ax, L.Constant(f32t, TRIG_FAST_LIMIT))  # NaN: the inlined copy
        fast_bb, slow_bb, done = (self.fn.append_basic_block(n) for n in ("trig.fast", "trig.slow", "trig.done"))
        b.cbranch(small, fast_bb, slow_bb)
        b.position_at_end(fast_bb)
        r_fast = b.call(f, [x])
        b.branch(done)
        b.position_at_end(slow_bb)
        r_slow = b.call(slow_fn, [x])
        b.branch(done)
        b.position_at_end(done)
        r = b.phi(f32t)
        r.add_incoming(r_fast, fast_bb)
        r.add_incoming(r_slow, slow_bb)
        return r

    def bit_count(self, fn, x):
        """popcnt, clz and ffs of an integer as an i32 (llvm.ctpop / ctlz / cttz: popc, clz, brev+clz
        on nvptx); ffs is 1 + the index of the lowest set bit, 0 for 0 (CUDA's __ffs)."""
        b, t = self.b, x.type
        i1 = L.IntType(1)
        if fn == "popcnt":
            r = b.call(self.intrinsic(f"llvm.ctpop.i{t.width}", t, [t]), [x])
        else:
            name = "ctlz" if fn == "clz" else "cttz"
            r = b.call(self.intrinsic(f"llvm.{name}.i{t.width}", t, [t, i1]), [x, L.Constant(i1, 0)])
        r = b.trunc(r, I32) if t.width > 32 else b.zext(r, I32) if t.width < 32 else r
        if fn == "ffs":
            r = b.select(b.icmp_unsigned("==", x, L.Constant(t, 0)), I32(0), b.add(r, I32(1)))
        return r

    def int_pow(self, base, exp):
        """Exact integer power by squaring (a negative exponent gives 1, the empty product)."""
        b, t = self.b, base.type
        one, zero = L.Constant(t, 1), L.Constant(t, 0)
        pre = b.block
        head, body, done = (self.fn.append_basic_block(n) for n in ("ipow.head", "ipow.body", "ipow.done"))
        b.branch(head)
        b.position_at_end(head)
        acc, sq, e = b.phi(t), b.phi(t), b.phi(t)
        acc.add_incoming(one, pre)
        sq.add_incoming(base, pre)
        e.add_incoming(exp, pre)
        b.cbranch(b.icmp_signed(">", e, zero), body, done)
        b.position_at_end(body)
        odd = b.icmp_unsigned("!=", b.and_(e, one), zero)
        acc.add_incoming(b.select(odd, b.mul(acc, sq), acc), body)
        sq.add_incoming(b.mul(sq, sq), body)
        e.add_incoming(b.ashr(e, one), body)
        b.branch(head)
        b.position_at_end(done)
        return acc

    def float_int_pow(self, base, exp):
        """A float to an integer power, as Quadrants' demote_operations computes it: squarings of the
        base multiplied into a running product from 1 for each set bit of |exp|, then 1 / it for a
        negative exponent (never the pow function, which rounds differently)."""
        b, t = self.b, exp.type
        zero = L.Constant(t, 0)
        mag = b.select(b.icmp_signed("<", exp, zero), b.sub(zero, exp), exp)
        one_f = L.Constant(base.type, 1.0)
        pre = b.block
        head, body, done = (self.fn.append_basic_block(n) for n in ("fipow.head", "fipow.body", "fipow.done"))
        b.branch(head)
        b.position_at_end(head)
        acc, sq, e = b.phi(base.type), b.phi(base.type), b.phi(t)
        acc.add_incoming(one_f, pre)
        sq.add_incoming(base, pre)
        e.add_incoming(mag, pre)
        b.cbranch(b.icmp_signed(">", e, zero), body, done)
        b.position_at_end(body)
        odd = b.icmp_unsigned("!=", b.and_(e, L.Constant(t, 1)), zero)
        acc.add_incoming(b.select(odd, b.fmul(acc, sq), acc), body)
        sq.add_incoming(b.fmul(sq, sq), body)
        e.add_incoming(b.ashr(e, L.Constant(t, 1)), body)
        b.branch(head)
        b.position_at_end(done)
        return b.select(b.icmp_signed("<", exp, zero), b.fdiv(one_f, acc), acc)

    def approx(self, fn, dt, args):
        """afn fallbacks for NVPTX without libdevice: sin.approx, ex2.approx, lg2.approx."""
        if dt.bits != 32 or fn not in math_lib.APPROX_F32:
            raise CodegenError(f"qd.{fn} on {dt!r} needs libdevice (libdevice.10.bc), which was not found; "
                               f"install the nvidia-nvvm wheel or a CUDA toolkit, or set QDEXPLORER_LIBDEVICE")
        if not self._logged_fallback:
            self.log.append("libdevice not found: qd.math uses afn approximations (sin.approx, ex2.approx, "
                            "lg2.approx); install nvidia-nvvm or set QDEXPLORER_LIBDEVICE for accurate math")
            self._logged_fallback = True
        b, f32t = self.b, L.FloatType()

        def call(name, *a):
            return b.call(self.intrinsic(name, f32t, [f32t] * len(a)), list(a), fastmath=("afn",))

        def exp(x):
            return call("llvm.exp2.f32", b.fmul(x, f32t(1.4426950408889634)))

        def log2(x):  # llvm.log2 with afn has no NVPTX lowering; the NVVM intrinsic does
            return b.call(self.intrinsic("llvm.nvvm.lg2.approx.f", f32t, [f32t]), [x])

        def log(x):
            return b.fmul(log2(x), f32t(0.6931471805599453))

        x = args[0]
        if fn == "sin":
            return call("llvm.sin.f32", x)
        if fn == "cos":
            return call("llvm.cos.f32", x)
        if fn == "tan":
            return b.fdiv(call("llvm.sin.f32", x), call("llvm.cos.f32", x))
        if fn == "exp":
            return exp(x)
        if fn == "log":
            return log(x)
        if fn == "pow":
            return call("llvm.exp2.f32", b.fmul(args[1], log2(x)))
        if fn == "tanh":
            return b.fsub(f32t(1.0), b.fdiv(f32t(2.0), b.fadd(exp(b.fmul(x, f32t(2.0))), f32t(1.0))))
        raise AssertionError(fn)
