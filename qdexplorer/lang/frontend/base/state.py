"""The state of one task being lowered, as every lowering mixin reads and grows it.

`TaskBuilder.__init__` (builder.py) sets it; the mixins share it through `self`. Declaring it on one
class is what lets a type checker follow the mixins' reads of it.
"""
from __future__ import annotations

import itertools

from .... import ir
from ...func import Func
from ..frame import Frame
from ..kernel_scope import KernelScope


class LoweringState:
    """One task's lowering state: its kernel, the frames of the funcs inlined into it, the blocks
    being filled."""

    kernel_name: str
    kscope: KernelScope
    frames: list[Frame]
    in_parallel: bool
    runtime_nesting: int
    out: list[list[ir.Stmt]]  # the blocks being filled, innermost last
    shared: list[ir.SharedArray]
    stop_grad: set
    counter: itertools.count
    block_features_ok: bool
    inline_stack: list[Func]
    other_task_names: set[str]  # top-level names of the kernel, for a better error hint
    made_locals: list[ir.Local]  # every local new_local made, in order (see v_BoolOp)
    task_index: int  # the task's place in its kernel (each task draws its own random streams)
    thread_ids: list[ir.Expr]  # a parallel task's loop indices: what tells its threads apart
    rng_state: ir.Local | None  # the thread's random stream position, made at its first draw (random.py)

    @property
    def frame(self) -> Frame:
        """The innermost frame: the kernel's own, or the func being inlined."""
        return self.frames[-1]

    def user_ndim(self, arr) -> int:
        """Axes the user indexes (an array of vectors keeps its components as trailing axes)."""
        return arr.ndim - len(self.kscope.elem_shapes.get(arr.name, ()))
