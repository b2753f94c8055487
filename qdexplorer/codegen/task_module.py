"""Task IR → a self-contained llvmlite module for one task and one target.

Self-contained means: the entry function, every helper it calls and every piece of shared
scratch are defined in this module (shared arrays are `internal addrspace(3)` globals), so the
module compiles, caches and loads on its own. The text of this module is the cache key.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from llvmlite import ir as L

from ..lang import ir
from ..lang.types import DType
from . import math_lib

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
NVPTX_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
I1, I32, I64 = L.IntType(1), L.IntType(32), L.IntType(64)
PTR = L.PointerType()
SHARED_PTR = L.PointerType(addrspace=3)



@dataclass(frozen=True)
class CodegenOptions:
    target: str = "nvptx"  # 'nvptx' | 'host'
    libdevice: str | None = None  # path; None → afn fallbacks on nvptx
    fast_math: bool = False
    vector: int = 4  # indices per thread per grid-stride step on nvptx (1 = plain grid-stride loop)


@dataclass
class TaskModule:
    """The LLVM text of one task for one target, plus what launching it needs."""
    task: str
    target: str
    text: str
    entry: str
    abi: list[tuple[str, str]]  # (param name, 'ptr'|'i32'|'i64'|'f32'|'f64'|'u32') in order
    needs_libdevice: bool = False
    vector: int = 1  # indices each thread takes per grid-stride step (sizes the launch grid)
    log: list[str] = field(default_factory=list)


def lltype(dt: DType):
    if dt.is_float:
        return L.FloatType() if dt.bits == 32 else L.DoubleType()
    return L.IntType(dt.bits)


def abi_name(dt: DType) -> str:
    return dt.name


def build_task_module(task: ir.Task, opts: CodegenOptions) -> TaskModule:
    if opts.target == "host" and task.uses_block_features:
        raise CodegenError(f"task {task.name} uses qd.simt.block features (shared arrays, sync, thread "
                           f"indices), which only the CUDA backend runs; use --backend cuda")
    em = _Emitter(task, opts)
    em.build()
    return TaskModule(task.name, opts.target, str(em.m), task.name, em.abi, em.needs_libdevice, em.vector, em.log)


class _Emitter:
    def __init__(self, task: ir.Task, opts: CodegenOptions):
        self.t, self.o = task, opts
        self.nv = opts.target == "nvptx"
        coarsen = self.nv and task.type == "range_for" and not task.serialize and not task.uses_block_features
        self.vector = max(1, opts.vector) if coarsen else 1
        self.m = L.Module(name=task.name)
        if self.nv:
            self.m.triple, self.m.data_layout = NVPTX_TRIPLE, NVPTX_LAYOUT
        self.log: list[str] = []
        self.needs_libdevice = False
        self._logged_fallback = False
        args, self.abi = [], []
        for p in task.params:
            if p.kind == "array":
                args.append(PTR)
                self.abi.append((p.name, "ptr"))
                for k in range(p.ndim):
                    args.append(I32)
                    self.abi.append((f"{p.name}.shape[{k}]", "i32"))
            else:
                args.append(lltype(p.dtype))
                self.abi.append((p.name, abi_name(p.dtype)))
        if not self.nv and task.type == "range_for":
            args += [I32, I32]
            self.abi += [("__lo", "i32"), ("__hi", "i32")]
        self.fn = L.Function(self.m, L.FunctionType(L.VoidType(), args), task.name)
        if self.nv:
            self.fn.calling_convention = "ptx_kernel"
        if self.nv:  # the CUDA backend gives every ndarray argument its own device buffer
            for a, (_, kind) in zip(self.fn.args, self.abi):
                if kind == "ptr":  # cuMemAlloc buffers are 256-byte aligned
                    a.add_attribute("noalias")
                    a.attributes.align = 16
        self.arrays, self.scalars = {}, {}
        it = iter(self.fn.args)
        for p in task.params:
            a = next(it)
            a.name = p.name
            if p.kind == "array":
                shape = []
                for k in range(p.ndim):
                    s = next(it)
                    s.name = f"{p.name}.shape{k}"
                    shape.append(s)
                self.arrays[p.name] = (a, shape)
            else:
                self.scalars[p.name] = a
        self.extra = list(it)
        self.entry = self.fn.append_basic_block("entry")
        self.alloca_b = L.IRBuilder(self.entry)
        self.b = L.IRBuilder(self.fn.append_basic_block("start"))
        self.slots: dict = {}
        self.loops: list[tuple] = []  # (break_bb, continue_bb)
        self.labels: dict = {}
        self.shared = {}
        for s in task.shared:
            n = 1
            for d in s.shape:
                n *= d
            g = L.GlobalVariable(self.m, L.ArrayType(lltype(s.dtype), n), f"{task.name}.{s.name}", addrspace=3)
            g.linkage = "internal"
            g.initializer = L.Constant(g.value_type, L.Undefined)
            g.align = 16
            self.shared[s.name] = g
        if self.nv:
            flags = self.m.add_metadata([I32(4), "nvvm-reflect-ftz", I32(0)])
            self.m.add_named_metadata("llvm.module.flags", flags)

    # ---- structure
    def build(self):
        if self.t.type == "serial":
            self.stmts(self.t.body)
        else:
            self.range_for()
        if not self.b.block.is_terminated:
            self.b.ret_void()
        self.alloca_b.branch(self.fn.basic_blocks[1])

    def range_for(self):
        b = self.b
        ext, begins = [], []
        for lo, hi in self.t.ranges:
            lo_v, hi_v = self.expr(lo), self.expr(hi)
            d = b.sub(hi_v, lo_v)
            ext.append(b.select(b.icmp_signed("<", d, I32(0)), I32(0), d))
            begins.append(lo_v)
        total = ext[0]
        for e in ext[1:]:
            total = b.mul(total, e)
        if self.nv:
            tid, ctaid = self.sreg("tid.x"), self.sreg("ctaid.x")
            ntid, nctaid = self.sreg("ntid.x"), self.sreg("nctaid.x")
            gtid, stride = b.add(b.mul(ctaid, ntid), tid), b.mul(nctaid, ntid)
            v = self.vector
            if v > 1:
                # Thread coarsening: each thread takes `v` adjacent indices per grid-stride step, so
                # the load/store vectorizer can merge them (ld.global.v4) and loads overlap stores.
                main_end = b.mul(b.udiv(total, I32(v)), I32(v))
                self.grid_loop(b.mul(gtid, I32(v)), b.mul(stride, I32(v)), main_end, begins, ext, unroll=v)
                self.grid_loop(b.add(main_end, gtid), stride, total, begins, ext)
            else:
                self.grid_loop(gtid, stride, total, begins, ext)
        else:
            lo, hi = self.extra
            end = b.select(b.icmp_signed("<", hi, total), hi, total)
            self.grid_loop(lo, I32(1), end, begins, ext)

    def grid_loop(self, start, stride, end, begins, ext, unroll=1):
        """for (idx = start; idx < end; idx += stride) { body(idx) ... body(idx + unroll - 1) }"""
        b = self.b
        idx = self.alloca_b.alloca(I32, name="idx")
        b.store(start, idx)
        head, body = self.fn.append_basic_block("loop"), self.fn.append_basic_block("body")
        latch, exit_ = self.fn.append_basic_block("latch"), self.fn.append_basic_block("exit")
        b.branch(head)
        b.position_at_end(head)
        # unsigned: idx and stride are below 2**31, so idx + stride never wraps and the loop ends
        b.cbranch(b.icmp_unsigned("<", b.load(idx, typ=I32), end), body, exit_)
        b.position_at_end(body)
        for j in range(unroll):
            nxt = latch if j == unroll - 1 else self.fn.append_basic_block(f"next{j}")
            rem = b.load(idx, typ=I32)
            if j:
                rem = b.add(rem, I32(j), flags=["nsw"])
            for k in reversed(range(len(ext))):
                var = self.slot(self.t.loop_vars[k])
                if k == 0:
                    b.store(b.add(begins[k], rem, flags=["nsw"]), var)
                else:
                    b.store(b.add(begins[k], b.urem(rem, ext[k]), flags=["nsw"]), var)
                    rem = b.udiv(rem, ext[k])
            self.loops.append((None, nxt))
            self.stmts(self.t.body)
            self.loops.pop()
            if not b.block.is_terminated:
                b.branch(nxt)
            if nxt is not latch:
                b.position_at_end(nxt)
        b.position_at_end(latch)
        b.store(b.add(b.load(idx, typ=I32), stride), idx)
        b.branch(head)
        b.position_at_end(exit_)

    def sreg(self, name):
        f = self.intrinsic(f"llvm.nvvm.read.ptx.sreg.{name}", I32, [])
        return self.b.call(f, [])

    def intrinsic(self, name, ret, args):
        existing = self.m.globals.get(name)
        if existing is not None:
            return existing
        return L.Function(self.m, L.FunctionType(ret, args), name)

    def slot(self, local: ir.Local):
        s = self.slots.get(id(local))
        if s is None:
            s = self.alloca_b.alloca(lltype(local.dtype), name=local.name)
            self.slots[id(local)] = s
        return s

    def dead_block(self):
        self.b.position_at_end(self.fn.append_basic_block("after"))

    # ---- statements
    def stmts(self, body):
        for s in body:
            getattr(self, "s_" + type(s).__name__)(s)

    def s_Assign(self, s):
        self.b.store(self.expr(s.value), self.slot(s.local))

    def s_Store(self, s):
        st = self.b.store(self.expr(s.value), self.address(s.array, s.indices))
        st.align = s.array.dtype.nbytes

    def s_ExprStmt(self, s):
        self.expr(s.value)

    def s_If(self, s):
        b = self.b
        cond = self.expr(s.cond)
        then_bb, else_bb, merge = (self.fn.append_basic_block(n) for n in ("then", "else", "endif"))
        b.cbranch(cond, then_bb, else_bb)
        for bb, body in ((then_bb, s.then), (else_bb, s.orelse)):
            b.position_at_end(bb)
            self.stmts(body)
            if not b.block.is_terminated:
                b.branch(merge)
        b.position_at_end(merge)

    def s_Loop(self, s):
        b = self.b
        body_bb, step_bb, exit_bb = (self.fn.append_basic_block(n) for n in ("for", "step", "endfor"))
        b.branch(body_bb)
        b.position_at_end(body_bb)
        self.loops.append((exit_bb, step_bb))
        self.stmts(s.body)
        self.loops.pop()
        if not b.block.is_terminated:
            b.branch(step_bb)
        b.position_at_end(step_bb)
        self.stmts(s.step)
        b.branch(body_bb)
        b.position_at_end(exit_bb)

    def s_Break(self, s):
        self.b.branch(self.loops[-1][0])
        self.dead_block()

    def s_Continue(self, s):
        self.b.branch(self.loops[-1][1])
        self.dead_block()

    def s_Barrier(self, s):
        self.b.call(self.intrinsic("llvm.nvvm.barrier0", L.VoidType(), []), [])

    def s_Block(self, s):
        end = self.fn.append_basic_block(s.label)
        self.labels[s.label] = end
        self.stmts(s.body)
        if not self.b.block.is_terminated:
            self.b.branch(end)
        self.b.position_at_end(end)

    def s_Return(self, s):
        self.b.branch(self.labels[s.label])
        self.dead_block()

    # ---- expressions
    def address(self, arr, indices):
        b = self.b
        idx = [self.expr(i) for i in indices]
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

    def expr(self, e):
        return getattr(self, "e_" + type(e).__name__)(e)

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
        v = self.b.load(self.address(e.array, e.indices), typ=lltype(e.array.dtype))
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

    def float_intrinsic(self, base, dt, args):
        t = lltype(dt)
        f = self.intrinsic(f"{base}.f{dt.bits}", t, [t] * len(args))
        return self.b.call(f, args)

    def e_BinOp(self, e):
        b, dt, op = self.b, e.dtype, e.op
        x, y = self.expr(e.lhs), self.expr(e.rhs)
        if op in ("and", "or"):
            return b.and_(x, y) if op == "and" else b.or_(x, y)
        if dt.is_float:
            if op in ("+", "-", "*", "/"):
                return {"+": b.fadd, "-": b.fsub, "*": b.fmul, "/": b.fdiv}[op](x, y)
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

    def e_MathCall(self, e):
        dt, args = e.dtype, [self.expr(a) for a in e.args]
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
        return self.b.call(f, args)

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

    def e_AtomicRMW(self, e):
        ptr = self.address(e.array, e.indices)
        v = self.expr(e.value)
        dt = e.array.dtype
        if dt.is_float:
            if e.op == "sub":
                op, v = "fadd", self.b.fneg(v)
            else:
                op = {"add": "fadd", "min": "fmin", "max": "fmax"}[e.op]
        else:
            op = {"add": "add", "sub": "sub", "min": "min" if dt.kind == "i" else "umin",
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


class CodegenError(Exception):
    """Codegen cannot express this task for the chosen target (reported against the task)."""
