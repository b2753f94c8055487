"""The compile stages, as data: a table keyed by output kind, and the functions behind it.

    Task IR ──ll──▶ LLVM module text ──ptx──▶ PTX text          (target nvptx)
                                     ──obj──▶ host object file   (target host)
                                     ──opt_ll─▶ optimised LLVM    (on demand, for reading)

`compiler.pipeline` walks a target's path through this table and applies cache, override,
dump and load the same way at every stage. The `ll` stage is pure Python (codegen) and runs in
the app process; the LLVM stages abort the whole process on some inputs ("LLVM ERROR: Cannot
select"), which is why `compile_module` only ever runs in a spawned pool worker (or a throwaway
subprocess), never in the app process. Inputs and outputs are plain picklable dataclasses.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .libdevice import libdevice_subset

DEFAULT_ARCH = "sm_90"
DEFAULT_PTX_ISA = "ptx85"


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
    emit: str = "code"             # 'code': PTX or object; 'll': the optimised module text (not cached);
                                   # 'cubin': texts are PTX, assembled by ptxas to a relocatable cubin


@dataclass
class CompileResult:
    task: str
    target: str
    ok: bool
    output: bytes = b""            # PTX text (utf-8, no NUL) or host object file
    error: str = ""
    log: list[str] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)  # stage → seconds (parse, link, opt, emit)

    @property
    def ptx(self) -> str:
        return self.output.decode() if self.target == "nvptx" else ""


_llvm_ready = False


def _llvm():
    global _llvm_ready
    from llvmlite import binding as llvm
    if not _llvm_ready:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _llvm_ready = True
    return llvm


def llvm_binding():
    """llvmlite's binding with every target initialised (the CPU backend's JIT needs it too)."""
    return _llvm()


def host_target_machine(opt_level=3):
    llvm = _llvm()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=llvm.get_host_cpu_name(), features=llvm.get_host_cpu_features().flatten(),
                                        opt=opt_level, reloc="pic", codemodel="default")


def compile_module(req: CompileRequest) -> CompileResult:
    """Parse, link (libdevice, other task modules), internalise helpers, optimise, emit."""
    if req.emit == "cubin":
        return assemble_cubin(req)
    llvm = _llvm()
    res = CompileResult(req.task, req.target, ok=False)
    t = time.perf_counter()
    try:
        mods = [_parse(llvm, text, entry) for text, entry in zip(req.texts, req.entries)]
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
                mod.link_in(libdevice_subset(llvm, req.libdevice, wanted, tm))  # only what the task calls
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
        t = time.perf_counter()
        if req.emit == "ll":
            res.output = str(mod).encode()
        elif req.target == "nvptx":
            res.output = tm.emit_assembly(mod).replace("\x00", "").encode()
        else:
            res.output = tm.emit_object(mod)
        res.seconds["emit"] = time.perf_counter() - t
        res.ok = True
    except Exception as e:  # noqa: BLE001 - LLVM reports verifier/parse problems as RuntimeError
        res.error = f"{type(e).__name__}: {e}".strip()
    return res


def assemble_cubin(req: CompileRequest) -> CompileResult:
    """The `cubin` stage: `ptxas -c -arch=<arch>` of one unit's PTX, a relocatable cubin for cuLink.

    Runs in the pool like the LLVM stages (ptxas is a subprocess; the pool keeps cores busy)."""
    from . import ptxas
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


def _parse(llvm, text, entry):
    """Parse one module text; a parse error names it `<entry>` (compiler.ll_errors maps that to its file)."""
    try:
        return llvm.parse_assembly(text)
    except RuntimeError as e:
        raise RuntimeError(str(e).replace("<string>", f"<{entry}>")) from None


@dataclass(frozen=True)
class Stage:
    kind: str            # what it produces: 'll' | 'ptx' | 'obj'
    source: str          # what it consumes: 'task_ir' | 'll'
    where: str           # 'app': pure Python here; 'pool': LLVM in a spawned worker
    cached: bool         # results kept in the PtxCache (memory + disk tiers)
    dump_suffix: str     # Quadrants' dump name: <task><suffix>; '' = not dumped
    per: str             # 'task' (one artifact per task) or 'unit' (per compile unit)


STAGES: dict[str, Stage] = {
    "ll": Stage("ll", "task_ir", "app", False, "_before_ptx.ll", "task"),
    "ptx": Stage("ptx", "ll", "pool", True, ".ptx", "unit"),
    "obj": Stage("obj", "ll", "pool", True, "", "unit"),
    "cubin": Stage("cubin", "ptx", "pool", True, "", "unit"),   # assembly mode 'culink' only
}

# A target's path; "<target>:<mode>" where an assembly mode walks further (culink: ptxas to cubins).
PATHS: dict[str, tuple[str, ...]] = {"nvptx": ("ll", "ptx"), "host": ("ll", "obj"),
                                     "nvptx:culink": ("ll", "ptx", "cubin")}


def path_for(target: str, mode: str) -> tuple[str, ...]:
    return PATHS.get(f"{target}:{mode}", PATHS[target])
