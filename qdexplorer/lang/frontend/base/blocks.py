"""The code a task is built into: blocks of statements, locals, shared arrays, and the dispatch of
each statement to the mixin that lowers it.

Every mixin emits through `emit` (a write under a pointer/bitmasked SNode activates its cells there)
and makes locals through `new_local` (a bool is kept in an i32 and read back as the u1 it holds).
"""
from __future__ import annotations

from .... import ir
from ....ir.errors import QdCompileError, QuadrantsSyntaxError
from ....ir.dtypes import DType, i32, u1
from ..values import cast
from .contract import SparseContract
from .diagnostics import Diagnostics


class StaticBreak(Exception):
    """A `break` reached while unrolling a qd.static loop outside any runtime branch (`if
    qd.static(i == 2): break`): it unwinds to that loop, which stops unrolling (loops.py)."""


class StaticContinue(StaticBreak):
    """A `continue` reached while unrolling a qd.static loop outside any runtime branch: the
    unrolling goes on with the loop's next item."""


class Emission(Diagnostics, SparseContract):
    """Blocks, statements and locals of the task being built."""

    def emit(self, stmt):
        if self.kscope.field_objs:  # a write under a pointer/bitmasked container activates its cells
            stmt = self.activating(stmt)
        self.out[-1].append(stmt)

    def new_local(self, name, dtype: DType, init: ir.Expr | None = None) -> ir.Local:
        is_bool = dtype == u1
        if is_bool:
            dtype = i32
        loc = ir.Local(f"{name}.{next(self.counter)}", dtype)
        self.made_locals.append(loc)
        if is_bool:  # stored in an i32, read back as the u1 it holds (v_Name): `p = a < b; p + q` is u1 arithmetic
            self.__dict__.setdefault("bool_locals", set()).add(id(loc))
        if init is not None:
            self.emit(ir.Assign(loc, cast(init, dtype)))
        return loc

    def shared_array(self, shape, dt):
        arr = ir.SharedArray(f"shared_{len(self.shared)}", dt, shape)
        self.shared.append(arr)
        return arr

    def block(self, stmts) -> list[ir.Stmt]:
        self.out.append([])
        self.frame.scopes.append({})
        try:
            for s in stmts:
                self.stmt(s)
        finally:
            self.frame.scopes.pop()
        return self.out.pop()

    def stmt(self, node):
        method = getattr(self, "s_" + type(node).__name__, None)
        if method is None:
            what = type(node).__name__
            if what in ("FunctionDef", "AsyncFunctionDef", "ClassDef"):
                self.err(node, f"Function definition is not allowed in 'qd.{'func' if len(self.frames) > 1 else 'kernel'}'"
                               f". (unsupported statement '{what}': define it at module level, as a @qd.func)",
                         QuadrantsSyntaxError)
            self.err(node, f'Unsupported node "{what}": unsupported statement \'{what}\' in a kernel',
                     QuadrantsSyntaxError)
        try:
            method(node)
        except (QdCompileError, RecursionError, StaticBreak):  # StaticContinue is a StaticBreak
            raise
        except Exception as e:  # noqa: BLE001 - a compiler bug still points at the user's line
            self.err(node, f"internal compiler error while lowering this statement ({type(e).__name__}: {e}); "
                           f"please report it with this kernel")
