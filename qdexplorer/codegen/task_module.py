"""Task IR → a self-contained llvmlite module for one task and one target.

Self-contained means: the entry function, every helper it calls and every piece of shared
scratch are defined in this module (shared arrays are `internal addrspace(3)` globals), so the
module compiles, caches and loads on its own. The text of this module is the cache key.

The emitter is assembled from one mixin per idea: the entry signature (abi.py), the loop nest
(schedule.py), reductions (reduction.py), statements (statements.py), expressions (expressions.py) and math
(math_lowering.py, fast_math.py). This file holds the options, the result and the per-task state they share.
"""
from __future__ import annotations

import math

from dataclasses import dataclass, field

from llvmlite import ir as L

from .. import ir
from .line_info import LineInfo
from .abi import I32, NVPTX_LAYOUT, NVPTX_TRIPLE, EntrySignature, lltype
from .calls import CallEmitter
from .debug_checks import DebugChecks
from .demote import demote_atomics
from .errors import CodegenError
from .expressions import ExpressionEmitter
from .fast_math import enable_ftz
from .alg_simp import alg_simp
from .math_lowering import MathEmitter, calls_libdevice
from .options import CodegenOptions
from .privatize import PrivatizeEmitter, find_private
from .reduction import ReductionEmitter
from .schedule import ScheduleEmitter, coarsening
from .statements import StatementEmitter

__all__ = ["CodegenError", "CodegenOptions", "TaskModule", "build_task_module"]


@dataclass
class TaskModule:
    """The LLVM text of one task for one target, plus what launching it needs."""
    task: str
    target: str
    text: str  # the compile pipeline keeps it once, in the `ll` artifact's bytes, and empties it here
    entry: str
    abi: list[tuple[str, str]]  # (param name, 'ptr'|'i32'|'i64'|'f32'|'f64'|'u32') in order
    needs_libdevice: bool = False
    vector: int = 1  # indices each thread takes per grid-stride step (sizes the launch grid)
    log: list[str] = field(default_factory=list)
    fast_math: bool = False  # built with fast math (CUDA only; the host ignores the setting)
    debug_sites: tuple = ()  # debug mode: (file:line, array) per bounds-check site, by site number
    one_wave: bool = False  # launch at most one wave of resident blocks (privatize.py)
    full_grid: bool = False  # launch a thread per coarsened step, no grid-stride cap (see _TaskEmitter.build)


def build_task_module(task: ir.Task, opts: CodegenOptions) -> TaskModule:
    try:
        return _build(task, opts)
    except RecursionError:  # the IR walks and emitters recurse over expressions
        raise CodegenError(f"{task.file}:{task.lines[0]}: task {task.name} nests expressions too deeply to compile "
                           f"(hundreds of terms in one expression?); split it into statements") from None


def _build(task: ir.Task, opts: CodegenOptions) -> TaskModule:
    if opts.target == "host" and task.uses_block_features:
        raise CodegenError(f"{task.file}:{task.lines[0]}: task {task.name} uses qd.simt.block features (shared "
                           f"arrays, sync, thread indices), which only the CUDA backend runs: use --backend "
                           f"cuda, or qd.init(arch=qd.cuda) in a script")
    task = demote_atomics(task)   # `v[i] += ...` touching only its own element: no atomic (demote.py)
    if opts.fast_math and opts.target == "host":
        # Quadrants' fast-math folds before LLVM (alg_simp.py). Quadrants simplifies so on every backend; here
        # on the host only until its CUDA side has run on a GPU (it was written after this session's GPU calls)
        task = alg_simp(task, merge_loads=True)
    em = _TaskEmitter(task, opts)
    em.build()
    return TaskModule(task.name, opts.target, str(em.m), task.name, em.abi, em.needs_libdevice, em.vector, em.log,
                      em.fast, tuple(em.debug_sites), em.one_wave, em.full_grid)


HOST_FAST_MATH = ("ninf", "nsz", "reassoc", "afn")  # the flags of Quadrants' IR builder under fast_math


class _TaskEmitter(ScheduleEmitter, PrivatizeEmitter, ReductionEmitter, StatementEmitter, ExpressionEmitter,
                   MathEmitter, DebugChecks, CallEmitter):
    """One task's module under construction: its builders, local slots and loop targets."""

    def __init__(self, task: ir.Task, opts: CodegenOptions):
        self.t, self.o = task, opts
        self.nv = opts.target == "nvptx"
        self.fast = self.nv and opts.fast_math  # fast_math.py; the host ignores the setting
        # fast math lets a multiply feeding an add become one fma (nvcc --use_fast_math, Numba's fastmath);
        # without the flag the NVPTX backend writes mul.rn/add.rn, which ptxas may not fuse either
        self.contract = ("contract",) if self.fast else ()
        if not self.nv and opts.fast_math:
            # Quadrants' host fast math: its IR builder puts ninf nsz reassoc afn on every float op; its JIT
            # (ORC with the host's default target options) fuses no multiply into an add. The same flags let
            # LLVM reassociate our sums as it does Quadrants': with them, 2 programs of the corpus (a
            # two-stream plasma, FEM) print Quadrants' checksums bit for bit where IEEE order did not
            self.contract = HOST_FAST_MATH
        self.log: list[str] = []
        heavy = self.nv and bool(opts.libdevice) and opts.vector > 1 and calls_libdevice(task, self.fast)
        self.heavy = heavy
        self.vector = coarsening(task, self.nv, opts.vector, heavy)
        if heavy and self.vector > 1:
            self.log.append(f"coarsened by {self.vector} with the body's libdevice math: each step's loads first, "
                            "its stores last (vector accesses)")
        elif heavy and coarsening(task, self.nv, opts.vector) > 1:
            self.log.append("coarsening off: the body inlines libdevice, so 1 index per thread per step "
                            "(compute-bound; keeps the PTX small)")
        self.m = L.Module(name=task.name)
        if self.nv:
            self.m.triple, self.m.data_layout = NVPTX_TRIPLE, NVPTX_LAYOUT
        self.needs_libdevice = False
        self.one_wave = False
        self.full_grid = False
        self._logged_fallback = False
        self.debug_sites: list[tuple[str, str]] = []
        self.sig = EntrySignature(self.m, task, self.nv, debug=opts.debug and any(p.kind == "array"
                                                                              for p in task.params))
        self.fn, self.abi = self.sig.fn, self.sig.abi
        self.arrays, self.scalars = self.sig.arrays, self.sig.scalars
        # fields of 2^31 elements or more are addressed in 64 bits (expressions.py: linear)
        self.wide = {a.name for a in task.implicit if a.role == "field" and math.prod(a.shape) >= 2**31}
        self.elem_ndim = {a.name: a.elem_ndim for a in task.implicit}  # vector fields' component axes (linear)
        self.entry = self.fn.append_basic_block("entry")
        self.alloca_b = L.IRBuilder(self.entry)
        for name in self.sig.half_args:
            self.scalars[name] = self.alloca_b.fptrunc(self.scalars[name], L.HalfType(), name=f"{name}.half")
        self.b = L.IRBuilder(self.fn.append_basic_block("start"))
        self.slots: dict = {}
        self.loops: list[tuple] = []  # (break_bb, continue_bb)
        self.labels: dict = {}
        self.preloaded: dict | None = None  # Load -> its value, issued ahead (schedule.py: streamed)
        self.reductions: dict = {}  # (array, indices) -> Reduction; see reduction.py
        self.accumulators: dict = {}  # (array, indices) -> the thread's private accumulator slot
        self.shared = {}
        self.local_arrays: dict = {}
        for s in task.shared:
            n = 1
            for d in s.shape:
                n *= d
            g = L.GlobalVariable(self.m, L.ArrayType(lltype(s.dtype), n), f"{task.name}.{s.name}", addrspace=3)
            g.linkage = "internal"
            g.initializer = L.Constant(g.value_type, L.Undefined)
            g.align = 16
            self.shared[s.name] = g
        if self.fast:
            enable_ftz(self.fn)
        if self.nv:
            flags = self.m.add_metadata([I32(4), "nvvm-reflect-ftz", I32(int(self.fast))])
            self.m.add_named_metadata("llvm.module.flags", flags)
        self.line_info = LineInfo(self.m, self.fn, task) if self.nv else None
        if self.line_info is not None:
            self.b.debug_metadata = self.line_info.first

    def build(self):
        if self.t.type == "serial":
            self.stmts(self.t.body)
        else:
            self.reduction_begin()
            private = find_private(self.t, self.nv, self.o.debug)
            if private:
                self.privatized_range_for(private)
                self.one_wave = True
            else:
                self.range_for()
                # A coarsened CUDA loop with nothing to combine across its steps runs best with one step
                # per thread: on the H100 the capped grid's grid-stride gave the 8192^2 stencil 0.67 of the
                # copy rate and this 0.90, copy/saxpy 0.97/0.98 -> 1.01/1.03, the 2^20 integrate 0.99 -> 1.12
                # (cuda_bandwidth.py --kernels --explore, call 4). Not at one index a thread (copy 0.82 ->
                # 0.57) and not with a reduction, whose per-thread partials want few threads (sum 0.98 -> 0.35)
                self.full_grid = self.nv and self.vector > 1 and not self.reductions
            self.reduction_end()
        if not self.b.block.is_terminated:
            self.b.ret_void()
        if not self.nv and self.o.fast_math:
            reverse_allocas(self.entry)
        self.alloca_b.branch(self.fn.basic_blocks[1])


def reverse_allocas(entry) -> None:
    """The entry block's allocas last first. Quadrants' locals reach LLVM's reassociation as phis in
    the reverse of their declaration order (a loop's `z.y` before `z.x`), ours in it: LLVM ranks a
    sum's terms by their phis' order, so under the host's fast math a loop's `z.x * z.x - z.y * z.y
    + c.x` summed in another order (taichi_mandelbrot_zoom). Other instructions stay where they are."""
    ins = entry.instructions
    slots = [k for k, i in enumerate(ins) if isinstance(i, L.AllocaInstr)]
    allocas = [ins[k] for k in slots]
    for k, a in zip(slots, reversed(allocas)):
        ins[k] = a
