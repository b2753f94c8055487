"""The compile stages, as data: a table keyed by output kind, holding the function of each stage.

    Task IR ──ll──▶ LLVM module text ──ptx──▶ PTX text ──cubin──▶ relocatable cubin (culink)
                                     ──obj──▶ host object file
                                     ──opt_ll─▶ optimised LLVM    (on demand, for reading)

`compiler.pipeline` walks a target's path through this table and applies cache, override,
dump and load the same way at every stage. The `ll` stage is pure Python (codegen) and runs in
the app process; the others run in a spawned pool worker (or a throwaway subprocess), never in
the app process, since LLVM aborts the whole process on some inputs ("LLVM ERROR: Cannot
select"). A pooled stage's request names its stage, and `run_stage` looks its function up here.
Inputs and outputs are plain picklable dataclasses.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..codegen.task_module import CodegenOptions, TaskModule, build_task_module
from .. import ir
from ..machine.arch import DEFAULT_ARCH, DEFAULT_PTX_ISA
from ..machine.llvm_binding import llvm_binding
from . import ptxas
from .libdevice import libdevice_subset



CODE_STAGE = {"nvptx": "ptx", "host": "obj"}   # the stage that makes what a target's device loads


@dataclass(frozen=True)
class CompileRequest:
    task: str                      # task name (or kernel name in whole-module mode)
    target: str                    # 'nvptx' | 'host'
    texts: tuple[str, ...]         # one module text per task (several only in whole-module mode)
    entries: tuple[str, ...]       # entry points to keep visible
    arch: str = DEFAULT_ARCH
    ptx_isa: str = DEFAULT_PTX_ISA
    opt_level: int = 3
    libdevice: str | None = None   # linked when a module calls __nv_* functions
    fast_math: bool = False
    stage: str = ""                # the pooled stage to run (a key of STAGES); '' = the target's code stage

    def __post_init__(self) -> None:
        if not self.stage:
            object.__setattr__(self, "stage", CODE_STAGE[self.target])


@dataclass
class CompileResult:
    task: str
    target: str
    ok: bool
    output: bytes = b""            # PTX text (utf-8, no NUL), a host object file, a cubin, or LLVM IR text
    error: str = ""
    log: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)  # step → seconds (parse, link, opt, emit, ptxas)

    @property
    def ptx(self) -> str:
        return self.output.decode() if self.target == "nvptx" else ""


def host_target_machine(opt_level: int = 3) -> Any:
    llvm = llvm_binding()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                                        opt=opt_level, reloc="pic", codemodel="default")


class _Modules:
    """One request's LLVM context and every module parsed into it, disposed together (modules
    first) when the request ends. In LLVM's global context, types, constants and metadata of every
    module a worker ever compiled stayed behind: about 100 KB per task, 600 MB per worker after
    5000 tasks. A fresh context per request also makes the output independent of what the worker
    compiled before it."""

    def __init__(self, llvm: Any):
        self.llvm, self.ctx = llvm, llvm.create_context()
        self.mods: list[Any] = []

    def keep(self, mod: Any) -> Any:
        self.mods.append(mod)
        return mod

    def __enter__(self) -> _Modules:
        return self

    def __exit__(self, *_: object) -> None:
        for m in self.mods:  # a module linked into another is already detached: close() skips it
            m.close()
        self.ctx.close()


def _optimised(llvm: Any, req: CompileRequest, res: CompileResult, owned: _Modules) -> tuple[Any, Any]:
    """Parse, link (libdevice, other task modules), internalise helpers, optimise: (module, target machine)."""
    t = time.perf_counter()
    mods = [owned.keep(_parse(llvm, text, entry, owned.ctx)) for text, entry in zip(req.texts, req.entries)]
    mod = mods[0]
    for other in mods[1:]:
        mod.link_in(other)
    res.seconds["parse"] = time.perf_counter() - t
    t = time.perf_counter()
    if req.target == "nvptx":
        tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
            cpu=req.arch, features=f"+{req.ptx_isa}", opt=req.opt_level)
        wanted = sorted(f.name for f in mod.functions if f.name.startswith("__nv_") and f.is_declaration)
        if wanted:
            if not req.libdevice:
                raise RuntimeError("this module calls libdevice (__nv_*) but no libdevice path was given")
            # only what the task calls
            mod.link_in(owned.keep(libdevice_subset(llvm, req.libdevice, wanted, tm, owned.ctx)))
            res.log.append(f"linked libdevice: {req.libdevice} ({', '.join(wanted)} and their callees)")
    else:
        tm = host_target_machine(req.opt_level)
        mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)
    keep = set(req.entries)
    for f in mod.functions:
        if not f.is_declaration and f.name not in keep:
            f.linkage = "internal"
    for g in mod.global_variables:
        if not g.is_declaration:
            g.linkage = "internal"
    mod.verify()
    res.seconds["link"] = time.perf_counter() - t
    t = time.perf_counter()
    pto = llvm.create_pipeline_tuning_options(speed_level=req.opt_level)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    res.seconds["opt"] = time.perf_counter() - t
    return mod, tm


def _from_optimised(req: CompileRequest, emit: Callable[[Any, Any, CompileResult], bytes]) -> CompileResult:
    """A stage that ends in the optimised module: `emit(mod, tm, res)` gives its output. An LLVM
    problem (a verifier or parse error) is the result's error, not an exception."""
    llvm = llvm_binding()
    res = CompileResult(req.task, req.target, ok=False)
    try:
        with _Modules(llvm) as owned:
            mod, tm = _optimised(llvm, req, res, owned)
            res.output, res.ok = emit(mod, tm, res), True
    except Exception as e:  # noqa: BLE001 - LLVM reports verifier/parse problems as RuntimeError
        res.error = f"{type(e).__name__}: {e}".strip()
    return res


def compile_module(req: CompileRequest) -> CompileResult:
    """The `ptx` and `obj` stages: the optimised module emitted as PTX text or a host object file."""
    def emit(mod, tm, res) -> bytes:
        t = time.perf_counter()
        if req.target == "nvptx":
            out = tm.emit_assembly(mod).replace("\x00", "").encode()
        else:
            out = tm.emit_object(mod)
        res.seconds["emit"] = time.perf_counter() - t
        return out
    return _from_optimised(req, emit)


def optimise_module(req: CompileRequest) -> CompileResult:
    """The `opt_ll` stage: the module as the code stage optimises it, as LLVM IR text, for reading."""
    return _from_optimised(req, lambda mod, tm, res: str(mod).encode())


def assemble_cubin(req: CompileRequest) -> CompileResult:
    """The `cubin` stage: `ptxas -c -arch=<arch>` of one unit's PTX, a relocatable cubin for cuLink.

    Runs in the pool like the LLVM stages (ptxas is a subprocess; the pool keeps cores busy)."""
    res = CompileResult(req.task, req.target, ok=False)
    t = time.perf_counter()
    if len(req.texts) != 1:
        res.error = f"the cubin stage assembles one PTX per unit, got {len(req.texts)}"
        return res
    try:
        report, cubin = ptxas.assemble_cubin(req.texts[0], req.arch, relocatable=True)
    except ptxas.PtxasNotFound as e:
        res.error = f"assembly mode 'culink' needs ptxas: {e}"
        return res
    res.seconds["ptxas"] = time.perf_counter() - t
    res.log += [f"ptxas {d}" for d in report.diagnostics if d.severity == "warning"]
    if not report.ok or cubin is None:
        res.error = "ptxas rejected the PTX:\n" + "\n".join(str(d) for d in report.errors or report.diagnostics)
        return res
    res.output, res.ok = cubin, True
    return res


def _parse(llvm: Any, text: str, entry: str, ctx: Any = None) -> Any:
    """Parse one module text; a parse error names it `<entry>` (compiler.ll_errors maps that to its file)."""
    try:
        return llvm.parse_assembly(text, ctx)
    except RuntimeError as e:
        raise RuntimeError(str(e).replace("<string>", f"<{entry}>")) from None


@dataclass(frozen=True)
class Stage:
    """One step of a path: what it makes, from what, and the one function that makes it, either
    `codegen` (pure Python, in the app process, per task) or `pooled` (in a pool worker)."""
    kind: str                      # what it produces (a key of an artifact map)
    source: str                    # the kind it consumes ('task_ir': the task itself)
    codegen: Callable[[ir.Task, CodegenOptions], TaskModule] | None = None
    pooled: Callable[[CompileRequest], CompileResult] | None = None
    cached: bool = False           # results kept in the PtxCache (memory + disk tiers)
    dump_suffix: str = ""          # Quadrants' dump name: <task><suffix>; '' = not dumped


STAGES: dict[str, Stage] = {
    "ll": Stage("ll", "task_ir", codegen=build_task_module, dump_suffix="_before_ptx.ll"),
    "ptx": Stage("ptx", "ll", pooled=compile_module, cached=True, dump_suffix=".ptx"),
    "obj": Stage("obj", "ll", pooled=compile_module, cached=True),
    "cubin": Stage("cubin", "ptx", pooled=assemble_cubin, cached=True),   # assembly mode 'culink' only
    "opt_ll": Stage("opt_ll", "ll", pooled=optimise_module),              # on demand, for reading
}

# A target's path; "<target>:<mode>" where an assembly mode walks further (culink: ptxas to cubins).
PATHS: dict[str, tuple[str, ...]] = {"nvptx": ("ll", "ptx"), "host": ("ll", "obj"),
                                     "nvptx:culink": ("ll", "ptx", "cubin")}


def path_for(target: str, mode: str) -> tuple[str, ...]:
    return PATHS.get(f"{target}:{mode}", PATHS[target])


def run_stage(req: CompileRequest) -> CompileResult:
    """What a pool worker runs: the function of the stage the request names."""
    fn = STAGES[req.stage].pooled
    if fn is None:
        return CompileResult(req.task, req.target, ok=False, error=f"stage {req.stage!r} does not run in the pool")
    return fn(req)
