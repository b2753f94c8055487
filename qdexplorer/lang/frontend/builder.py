"""The builder of one task's IR: the state a task's lowering starts from.

`offload.py` decides what the tasks are; the mixins this class combines lower each construct:
`stmts.py` (assignments, if), `loops.py`, `funcs.py` (@qd.func inlining), `calls.py`,
`intrinsics.py` (qd.* math, atomics, SIMT), `random.py`, `sparse.py` (SNode cells, x.fill),
`vectors.py` and `exprs/` (names, subscripts, operators, one module each).
`base/` holds the plumbing they share (name resolution, emitted blocks, compile-time evaluation,
errors) and the contract between them.
"""
from __future__ import annotations

import itertools

from ..tasks.source import SourceInfo, python_env
from ..struct_types import StructField
from .calls import CallLowering
from .exprs import ExprLowering
from .frame import Frame
from .funcs import FuncInlining
from .real_funcs import RealFuncCalls
from .intrinsics import IntrinsicLowering
from .kernel_scope import KernelScope
from .loops import LoopLowering
from .random import RandomLowering
from .sparse import SparseLowering
from .structs import StructLowering
from .values import Py
from .stmts import StatementLowering
from .vectors import VectorLowering
from .views import ViewLowering


class TaskBuilder(StatementLowering, LoopLowering, FuncInlining, RealFuncCalls, CallLowering, IntrinsicLowering,
                  RandomLowering, SparseLowering, StructLowering, VectorLowering, ViewLowering, ExprLowering):
    """Builds the IR of one task; inlines funcs into it. Each mixin lowers one family of constructs."""

    def __init__(self, kernel_name: str, src: SourceInfo, args: dict, parallel: bool,
                 kscope: KernelScope | None = None, task_index: int = 0):
        self.kernel_name = kernel_name
        self.kscope = kscope or KernelScope(args)
        self.frames = [Frame(src, python_env(src.fn))]
        self.frames[0].scopes[0].update(args)
        for k, v in args.items():  # a struct field passed to a qd.template() parameter: its member arrays
            if isinstance(v, Py) and isinstance(v.value, StructField):
                self.frames[0].scopes[0][k] = self.global_value(v.value, k)
        self.in_parallel = parallel
        self.runtime_nesting = 0  # runtime for/while/if bodies around the statement being lowered
        self.out = [[]]
        self.shared = []
        self.stop_grad: set = set()  # fields `qd.stop_grad(x)` named: no gradient flows into them from this task
        self.counter = itertools.count()
        self.block_features_ok = True
        self.inline_stack = []
        self.other_task_names = set()
        self.pure = False  # a pure kernel's body (@qd.kernel(pure=True) / fastcache=True): exprs/names.py, check_pure
        self.made_locals = []
        self.task_index = task_index
        self.thread_ids = []  # offload.py sets a parallel task's loop indices
        self.rng_state = None
