"""Task IR statements → LLVM control flow (one `s_<Node>` method per statement kind)."""
from __future__ import annotations

from llvmlite import ir as L


class StatementEmitter:
    """Mixin of the task emitter; `self.loops` holds (break, continue) targets innermost last."""

    def stmts(self, body):
        for s in body:
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
