"""Task IR statements → LLVM control flow (one `s_<Node>` method per statement kind)."""
from __future__ import annotations

from llvmlite import ir as L

from .. import ir
from .line_info import stmt_line
from .emitter_base import EmitterBase


class StatementEmitter(EmitterBase):
    """Mixin of the task emitter; `self.loops` holds (break, continue) targets innermost last."""

    def stmts(self, body):
        for s in body:
            if self.line_info is not None:
                line = stmt_line(s)
                if line:
                    self.b.debug_metadata = self.line_info.at(line)
            getattr(self, "s_" + type(s).__name__)(s)

    def dead_block(self):
        """Code after break/continue/return is unreachable but still needs a block to go in."""
        self.b.position_at_end(self.fn.append_basic_block("after"))

    def s_Assign(self, s):
        self.b.store(self.expr(s.value), self.slot(s.local))

    def s_Store(self, s):
        st = self.b.store(self.expr(s.value), self.address(s.array, s.indices, s.where))
        st.align = s.array.dtype.nbytes

    def s_ExprStmt(self, s):
        if isinstance(s.value, ir.AtomicRMW):  # `a[j] += v`, `qd.atomic_add(...)` with its result unused
            self.atomic_reduce(s.value)
            return
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

    def s_Print(self, s):
        """printf on the host, vprintf (arguments packed 8 bytes each) on CUDA; Quadrants' formats."""
        b = self.b
        fmt, vals = [], []
        specs = s.specs or ("",) * len(s.parts)
        for p, spec in zip(s.parts, specs):
            if isinstance(p, str):
                fmt.append(p.replace("%", "%%"))
                continue
            v, dt = self.expr(p), p.dtype
            if spec:
                f, v = self.printf_spec(spec, v, dt)
                fmt.append(f)
                vals.append(v)
                continue
            if dt.is_float:
                fmt.append("%.12f" if dt.bits == 64 else "%f")
                vals.append(b.fpext(v, L.DoubleType()) if dt.bits < 64 else v)
            elif dt.bits == 64:
                fmt.append("%lld" if dt.kind == "i" else "%llu")
                vals.append(v)
            else:  # narrower integers (and comparison results) widen to 64 bits
                fmt.append("%lld" if dt.kind == "i" else "%llu")
                vals.append(b.sext(v, L.IntType(64)) if dt.kind == "i" else b.zext(v, L.IntType(64)))
        ptr = b.bitcast(self.format_string("".join(fmt)), L.PointerType())
        if self.nv:
            buf = self.alloca_b.alloca(L.ArrayType(L.IntType(64), max(1, len(vals))), name="printf_args")
            for k, v in enumerate(vals):
                slot = b.gep(buf, [L.Constant(L.IntType(32), 0), L.Constant(L.IntType(32), k)])
                b.store(b.bitcast(v, L.IntType(64)) if isinstance(v.type, L.DoubleType) else v, slot)
            vprintf = self.intrinsic("vprintf", L.IntType(32), [L.PointerType(), L.PointerType()])
            b.call(vprintf, [ptr, b.bitcast(buf, L.PointerType())])
        else:
            printf = self.m.globals.get("printf") or L.Function(
                self.m, L.FunctionType(L.IntType(32), [L.PointerType()], var_arg=True), "printf")
            b.call(printf, [ptr] + vals)
            fflush = self.intrinsic("fflush", L.IntType(32), [L.PointerType()])
            b.call(fflush, [L.Constant(L.PointerType(), None)])

    def printf_spec(self, spec: str, v, dt):
        """A Python format spec (`.2f`, `>8.3e`, `05d`, `x`) as the printf conversion Quadrants prints it
        with, and the value converted to what that conversion reads (a double or a 64-bit integer)."""
        import re
        b = self.b
        m = re.fullmatch(r"([<>^=]?)([+\- ]?)(#?)(0?)(\d*)(\.\d+)?([deEfFgGxXoiu]?)", spec)
        # the frontend lets only these specs through (frontend/calls.py PRINT_SPEC)
        align, sign, alt, zero, width, prec, conv = m.groups() if m is not None else ("",) * 7
        flags = ("-" if align == "<" else "") + (sign if sign in "+ " else "") + alt + zero
        conv = conv or ("f" if dt.is_float else "d")
        conv = "d" if conv in "iu" else conv
        if conv in "eEfFgG":
            if not dt.is_float:
                v = b.sitofp(v, L.DoubleType()) if dt.kind == "i" else b.uitofp(v, L.DoubleType())
            elif dt.bits < 64:
                v = b.fpext(v, L.DoubleType())
            return f"%{flags}{width}{prec or ''}{conv}", v
        if dt.is_float:
            v = b.fptosi(v, L.IntType(64))
        elif dt.bits < 64:
            v = b.sext(v, L.IntType(64)) if dt.kind == "i" else b.zext(v, L.IntType(64))
        return f"%{flags}{width}{prec or ''}ll{conv}", v

    def format_string(self, fmt: str):
        """One internal constant per distinct format (an unrolled loop prints through the same one)."""
        cache = self.__dict__.setdefault("_formats", {})
        g = cache.get(fmt)
        if g is None:
            text = bytearray(fmt.encode()) + b"\0"
            ty = L.ArrayType(L.IntType(8), len(text))
            g = cache[fmt] = L.GlobalVariable(self.m, ty, self.m.get_unique_name("fmt"))
            g.global_constant, g.linkage, g.initializer = True, "internal", L.Constant(ty, text)
        return g
