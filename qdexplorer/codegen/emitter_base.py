"""What the task emitter's mixins share: one task module's state under construction, the plumbing
on it, and what each mixin provides to the others.

`_TaskEmitter` (task_module.py) combines one mixin per idea; each calls into the others (statements
need `expr`, the schedule needs `stmts`). This base class is that contract, written down so a type
checker can follow it: `task_module.py` fills the state, and each method another mixin provides is
declared abstract with the signature it keeps.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from llvmlite import ir as L

from .. import ir
from ..ir.dtypes import DType
from .abi import I32, EntrySignature, lltype
from .line_info import LineInfo
from .options import CodegenOptions


class EmitterBase(ABC):
    """One task's module under construction, as every emitter mixin sees it."""

    t: ir.Task
    o: CodegenOptions
    nv: bool  # the target is nvptx (else the host)
    fast: bool  # fast math is on (nvptx only)
    contract: tuple[str, ...]  # flags of f32 +, -, *: ("contract",) under fast math (a mul feeding an add is an fma)
    log: list[str]  # notes for the user about choices made (coarsening, reductions, fallbacks)
    vector: int  # indices each thread takes per grid-stride step
    heavy: bool  # the CUDA body inlines libdevice math (a coarsened step then streams its accesses)
    preloaded: dict | None  # Load -> its value issued ahead in a coarsened step (schedule.py: streamed)
    m: L.Module
    needs_libdevice: bool
    debug_sites: list[tuple[str, str]]  # (file:line, array) per bounds-check site, by site number
    sig: EntrySignature
    fn: L.Function
    abi: list[tuple[str, str]]
    arrays: dict  # name -> (pointer, [shape args])
    wide: set  # arrays of 2^31 elements or more: addressed in 64 bits
    elem_ndim: dict  # array name -> its vector/matrix component axes (host addressing, expressions.py linear)
    scalars: dict  # name -> the entry's argument
    entry: L.Block
    alloca_b: L.IRBuilder  # allocas go in the entry block, ahead of everything else
    b: L.IRBuilder  # where code is emitted now
    slots: dict  # id(ir.Local) -> its alloca
    loops: list[tuple]  # (break_bb, continue_bb) of the loops around the current point
    labels: dict  # a func block's label -> its exit block
    reductions: dict  # (array, indices) -> Reduction; see reduction.py
    accumulators: dict  # (array, indices) -> the thread's private accumulator slot
    shared: dict  # shared array name -> its addrspace(3) global
    local_arrays: dict  # LocalArray name -> its entry-block alloca
    line_info: LineInfo | None
    _logged_fallback: bool = False  # the libdevice-missing note was logged
    _logged_fast: bool = False  # the fast-math note was logged

    # -- plumbing
    def sreg(self, name: str) -> L.Instruction:
        f = self.intrinsic(f"llvm.nvvm.read.ptx.sreg.{name}", I32, [])
        return self.b.call(f, [])

    def intrinsic(self, name: str, ret: L.Type, args: list) -> L.Function:
        existing = self.m.globals.get(name)
        if existing is not None:
            return existing
        return L.Function(self.m, L.FunctionType(ret, args), name)

    def slot(self, local: ir.Local) -> L.AllocaInstr:
        s = self.slots.get(id(local))
        if s is None:
            s = self.alloca_b.alloca(lltype(local.dtype), name=local.name)
            self.slots[id(local)] = s
        return s

    # -- provided by ExpressionEmitter (expressions.py)
    @abstractmethod
    def expr(self, e: ir.Expr) -> L.Value: ...

    @abstractmethod
    def e_Load(self, e: ir.Load) -> L.Value: ...   # a load itself, past `expr`'s preloaded values (streamed steps)

    @abstractmethod
    def address(self, arr: ir.ArrayArg | ir.SharedArray | ir.LocalArray, indices: tuple, where: str = "") -> L.Value: ...

    @abstractmethod
    def linear(self, arr: ir.ArrayArg, idx: list, shape: list) -> L.Value: ...

    @abstractmethod
    def atomic_reduce(self, e: ir.AtomicRMW) -> None: ...

    # -- provided by StatementEmitter (statements.py)
    @abstractmethod
    def stmts(self, body: list[ir.Stmt]) -> None: ...

    @abstractmethod
    def s_Barrier(self, s: ir.Barrier) -> None: ...

    # -- provided by ScheduleEmitter (schedule.py)
    @abstractmethod
    def range_for(self) -> None: ...

    # -- provided by ExpressionEmitter (expressions.py): a value Quadrants computes once (alg_simp.py)
    @abstractmethod
    def reused(self, reuse: tuple, t: L.Type, compute, prefix: str) -> L.Value: ...

    # -- provided by MathEmitter / FastMathEmitter (math_lowering.py, fast_math.py)
    @abstractmethod
    def float_intrinsic(self, base: str, dt: DType, args: list) -> L.Value: ...

    @abstractmethod
    def fdiv(self, x: L.Value, y: L.Value, dt: DType) -> L.Value: ...

    # -- provided by DebugChecks (debug_checks.py)
    @abstractmethod
    def check_bounds(self, arr: ir.ArrayArg, idx: list, shape: list, where: str) -> None: ...
