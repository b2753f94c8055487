"""The one compile loop: walk a target's path through the stage table, the same way at every stage.

For each stage (see `stages.STAGES`), each task or unit goes through the same four steps:
produce (memo or cache first, where the stage is cached, then the stage's own function: codegen
here, the others batched into the pool), dump (Quadrants' names), then let an override or a load
folder enter in place of what was produced, and hand the result to the next stage. Whole-module
mode only groups tasks into units differently before the first pooled stage; nothing else knows
about it. Reading a compiled task's optimised IR is one more, uncached, walk of the same loop.
"""
from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from ..codegen.math_lib import libdevice_path
from ..codegen.task_module import CodegenError, CodegenOptions, TaskModule
from .. import ir
from ..machine.arch import DEFAULT_ARCH, DEFAULT_PTX_ISA
from ..machine.launch_spec import ArgSlot, LaunchSpec
from .artifacts import Artifact, CompiledTask, sha256
from .cache import PtxCache, cache_key
from .dump import dump_artifact
from .ll_errors import Source, locate
from .overrides import OverrideStore, signature_problem
from .pool import Compiler
from .stages import PATHS, STAGES, CompileRequest, CompileResult, Stage, path_for


def _refused(ov, kind: str, task: str) -> tuple[str, str]:
    """What a refused override file is, and what to do about it, by where it came from: a project's
    override, a QD_LOAD_IR file, or a --load-ptx / QUADRANTS_LOAD_PTX file."""
    if ov.source == "load-ir":
        return (f"the QD_LOAD_IR file {ov.path}",
                "fix or remove it (it replaces the task's LLVM IR), or unset QD_LOAD_IR")
    if ov.source == "load-ptx":
        return (f"the PTX load-folder file {ov.path} (--load-ptx / QUADRANTS_LOAD_PTX)",
                "fix or remove it, or run without --load-ptx (and unset QUADRANTS_LOAD_PTX)")
    return (f"{kind.upper()} override {ov.path}", f"fix it, or run `qdexplorer override revert` for {task}")


@dataclass(frozen=True)
class Unit:
    """What one pooled stage compiles as one module: a task, or all of a kernel's tasks."""
    name: str
    kernel: str
    tasks: tuple[ir.Task, ...]


MODES = ("per_task", "whole", "culink")


def group_units(tasks: list[ir.Task], mode: str) -> list[Unit]:
    """How tasks are grouped for the pooled stages. culink compiles and assembles per task (cubins
    cached per task); only loading links a kernel's cubins into one module (`link_unit`)."""
    if mode in ("per_task", "culink"):
        return [Unit(t.name, t.kernel, (t,)) for t in tasks]
    if mode == "whole":
        by_kernel: dict[str, list[ir.Task]] = {}
        for t in tasks:
            by_kernel.setdefault(t.kernel, []).append(t)
        return [Unit(f"{k}_kernel_whole", k, tuple(ts)) for k, ts in by_kernel.items()]
    raise ValueError(f"unknown assembly mode {mode!r} (per_task, whole or culink)")


def link_unit(task: ir.Task, unit: Unit, mode: str) -> str:
    """What the device loads as one module: the compile unit, or in culink mode the whole kernel."""
    return f"{task.kernel}_kernel_culink" if mode == "culink" else unit.name


def launch_spec(task: ir.Task, module: TaskModule | None, default_block: int | None = None) -> LaunchSpec:
    slots = tuple(ArgSlot(p.name, p.kind, "ptr" if p.kind == "array" else p.dtype.name, p.ndim)
                  for p in task.params)
    block = task.block_dim
    if block is None and task.type == "range_for":
        block = default_block
    vector, abi = (module.vector, tuple(t for _, t in module.abi)) if module is not None else (1, ())
    return LaunchSpec(task.name, task.kernel, task.type, slots, block, task.serialize,
                      task.uses_block_features, vector, abi,
                      bool(module is not None and module.abi and module.abi[-1][0] == "__debug"),
                      module.debug_sites if module is not None else (),
                      bool(module is not None and module.one_wave), _read_bounds(task),
                      full_grid=bool(module is not None and module.full_grid))


def _read_bounds(task: ir.Task) -> tuple:
    """LaunchSpec.read_bounds: each range bound a constant or one element of a 1-d array at a
    constant index (the rest, () : the launch keeps the count it was checked with)."""
    def one(e):
        while isinstance(e, ir.Cast) and e.dtype.is_int and e.operand.dtype.is_int:
            e = e.operand
        if isinstance(e, ir.Const):
            return ("c", int(e.value))
        if isinstance(e, ir.Load) and isinstance(e.array, ir.ArrayArg) and len(e.indices) == 1 \
                and isinstance(e.indices[0], ir.Const):
            return ("a", e.array.name, int(e.indices[0].value))
        return None
    if task.type != "range_for" or not any(isinstance(n, ir.Load) for n in ir.walk(task.ranges)):
        return ()
    out = tuple((one(lo), one(hi)) for lo, hi in task.ranges)
    return out if all(a is not None and b is not None for a, b in out) else ()


class _Trip:
    """One task's mutable state while the loop runs; frozen into a CompiledTask at the end."""

    def __init__(self, name: str, kernel: str, unit: Unit, target: str, task: ir.Task | None = None,
                 lower_s: float = 0.0):
        self.name, self.kernel, self.unit, self.target, self.task = name, kernel, unit, target, task
        self.produced: dict[str, Artifact] = {}
        self.used: dict[str, Artifact] = {}
        self.seconds = {"lower": lower_s}
        self.log: list[str] = []
        self.error = self.error_stage = ""
        self.module: TaskModule | None = None

    @classmethod
    def resume(cls, ct: CompiledTask) -> _Trip:
        """A compiled task's trip picked up where it ended, to walk further (its own unit of one)."""
        tr = cls(ct.task, ct.kernel, Unit(ct.task, ct.kernel, ()), ct.target)
        tr.produced, tr.used, tr.module = dict(ct.produced), dict(ct.used), ct.module
        return tr


class Pipeline:
    def __init__(self, compiler: Compiler, cache: PtxCache | None = None, arch: str = DEFAULT_ARCH,
                 ptx_isa: str = DEFAULT_PTX_ISA, overrides: OverrideStore | None = None,
                 dump_dir: str | None = None, mode: str = "per_task", fast_math: bool = True,
                 vector: int = 4, memo: bool = True, default_block: int | None = None,
                 on_task: Callable[[CompiledTask], None] | None = None, debug: bool = False):
        if mode not in MODES:
            raise ValueError(f"unknown assembly mode {mode!r} (per_task, whole or culink)")
        self.compiler, self.cache = compiler, cache or PtxCache(offline=False)
        self.arch, self.ptx_isa, self.fast_math, self.vector = arch, ptx_isa, fast_math, vector
        self.overrides = overrides or OverrideStore(None)
        self.dump_dir, self.mode, self.memo = dump_dir, mode, memo
        self.default_block = default_block
        self.debug = debug  # bounds-check every ndarray access (codegen/debug_checks.py)
        self.on_task: Callable[[CompiledTask], None] = on_task or (lambda ct: None)
        # (task fingerprint, options) -> (module, its text as the ll artifact's bytes)
        self.modules: dict[tuple[str, CodegenOptions], tuple[TaskModule, bytes]] = {}
        # Without the disk tier, a per-session nonce keeps the driver's own compute cache from
        # serving a previous run's SASS (Quadrants does the same).
        self.nonce = None if self.cache.offline else uuid.uuid4().hex[:12]

    # ---- the loop
    def compile(self, tasks: list[ir.Task], target: str, lower_s: dict[str, float] | None = None) -> list[CompiledTask]:
        lower_s = lower_s or {}
        units = group_units(tasks, self.mode)
        trips = [_Trip(t.name, t.kernel, u, target, t, lower_s.get(t.name, 0.0)) for u in units for t in u.tasks]
        self._walk(units, trips, target, path_for(target, self.mode))
        return [self._finish(tr, target) for tr in trips]

    def optimised_ll(self, ct: CompiledTask) -> str:
        """The task's LLVM IR in use (its override included) after the optimisation its code stage
        runs: the `opt_ll` stage walked from where the compile ended, in the pool, never cached."""
        if "ll" not in ct.used or ct.module is None:
            return f"; {ct.task} has no LLVM IR to optimise" + (f": {ct.error}" if ct.error else "")
        tr = _Trip.resume(ct)
        self._walk([tr.unit], [tr], ct.target, ("opt_ll",))
        art = tr.produced.get("opt_ll")
        return art.text if art is not None and not tr.error else f"; optimisation failed: {tr.error}"

    def _walk(self, units: list[Unit], trips: list[_Trip], target: str, kinds: tuple[str, ...]) -> None:
        for kind in kinds:
            stage = STAGES[kind]
            if stage.codegen is not None:
                for tr in trips:
                    if not tr.error:
                        self._codegen_stage(tr, target, stage)
            else:
                self._pool_stage(units, trips, target, stage)

    def _codegen_stage(self, tr: _Trip, target: str, stage: Stage) -> None:
        assert tr.task is not None, "codegen starts from the task's IR"
        t0 = time.perf_counter()
        try:
            tr.module, text, tier = self._codegen(stage, tr.task, target)
        except Exception as e:  # noqa: BLE001 - CodegenError, or a codegen bug: either way, this task
            tr.error = str(e) if isinstance(e, CodegenError) else (
                f"internal codegen error ({type(e).__name__}: {e}) in {tr.task.file}:{tr.task.lines[0]}; please report it")
            tr.error_stage = stage.kind
            return
        tr.seconds["codegen"] = time.perf_counter() - t0
        tr.log += tr.module.log
        art = Artifact(stage.kind, text, tier, seconds=tr.seconds["codegen"])
        self._hand_on(tr.name, stage.kind, art, [tr])

    def _pool_stage(self, units: list[Unit], trips: list[_Trip], target: str, stage: Stage) -> None:
        kind, src = stage.kind, stage.source
        by_unit: dict[str, list[_Trip]] = {}
        for tr in trips:
            by_unit.setdefault(tr.unit.name, []).append(tr)
        pending: list[tuple[Unit, list[_Trip], CompileRequest, str]] = []
        for u in units:
            group = by_unit[u.name]
            failed = next((tr for tr in group if tr.error), None)
            if failed is not None:
                for tr in group:
                    if not tr.error:
                        tr.error, tr.error_stage = f"{failed.name}: {failed.error}", failed.error_stage
                continue
            texts = tuple(tr.used[src].text for tr in group)
            mods = [tr.module for tr in group if tr.module is not None]
            req = CompileRequest(u.name, target, texts, tuple(m.entry for m in mods), self.arch, self.ptx_isa, 3,
                                 libdevice_path() if any(m.needs_libdevice for m in mods) and src == "ll" else None,
                                 any(m.fast_math for m in mods), stage=kind)
            t0 = time.perf_counter()
            key = cache_key(req) if stage.cached else ""
            data, tier = self.cache.get(key, PtxCache.namespace(req)) if stage.cached else (None, "")
            for tr in group:
                tr.seconds["cache"] = time.perf_counter() - t0
            if data is not None:
                self._hand_on(u.name, kind, Artifact(kind, data, tier, key), group)
            else:
                pending.append((u, group, req, key))
        if not pending:
            return
        t0 = time.perf_counter()

        def keep(i: int, res: CompileResult) -> None:  # on disk as soon as it is done: a killed compile keeps what it finished
            if res.ok and stage.cached:
                _, _, req, key = pending[i]
                self.cache.put(key, PtxCache.namespace(req), res.output)
        results = self.compiler.compile([req for _, _, req, _ in pending], on_done=keep)
        wall = time.perf_counter() - t0
        for (u, group, req, key), res in zip(pending, results):
            secs = sum(res.seconds.values()) or wall / len(pending)
            for tr in group:
                tr.seconds[kind] = secs
                tr.log += res.log
            if not res.ok:
                err = self._locate(res.error, group, src)
                for tr in group:
                    tr.error, tr.error_stage = err, kind
                continue
            self._hand_on(u.name, kind, Artifact(kind, res.output, "miss", key, seconds=secs), group)

    @staticmethod
    def _locate(error: str, group: list[_Trip], src: str) -> str:
        """A failed stage's error pointed at the file and line of its input (an edited LLVM IR above all)."""
        if src != "ll":
            return error
        sources = []
        for tr in group:
            art = tr.used[src]
            edited = art.origin != "generated"
            label = art.path if edited else f"{tr.name}{STAGES[src].dump_suffix} (generated)"
            sources.append(Source(tr.name, label, art.text, edited))
        err = locate(error, sources)
        edits = [s.label for s in sources if s.edited]
        if edits:
            err += (f"\nThe LLVM IR in {edits[0]} does not compile; what was loaded before stays loaded. "
                    f"Fix the file, or revert the override.")
        return err

    def _hand_on(self, name: str, kind: str, produced: Artifact, group: list[_Trip]) -> None:
        """Dump what the stage produced, then let an override or a load folder take its place."""
        if self.dump_dir and STAGES[kind].dump_suffix:
            dump_artifact(self.dump_dir, name, STAGES[kind].dump_suffix, produced.data)
        used = produced
        ov = self.overrides.get(name, kind)
        if ov is not None and ov.target not in (None, group[0].target):
            for tr in group:
                tr.log.append(f"{kind.upper()} override {ov.path} was written for target {ov.target}; "
                              f"not used when compiling for {group[0].target}")
            ov = None
        if ov is not None and kind == "ll":
            ptx_ov = self.overrides.get(group[0].unit.name, "ptx") if "ptx" in PATHS[group[0].target] else None
            if ptx_ov is not None:
                for tr in group:
                    tr.log.append(f"{_refused(ov, 'll', name)[0]} is not used: the PTX override {ptx_ov.path} wins "
                                  f"(a PTX override replaces everything the LLVM IR would become)")
                ov = None
        if ov is not None and kind == "ll" and not ov.problem:  # a wrong signature would run on garbage
            ov.problem = signature_problem(ov.data, produced.data, name)
        if ov is not None:
            status = ov.status(produced.sha)
            used = Artifact(kind, ov.data, "override" if ov.source == "project" else "load", sha256(ov.data),
                            "override" if ov.source == "project" else "load", str(ov.path), status)
            note = f"{kind.upper()} override ({ov.source}) loaded from {ov.path}"
            if status == "stale":
                note += f" — STALE: the generated {kind.upper()} changed since it was written"
            elif status == "unknown":
                note += " — its sidecar is missing, so whether it is stale is unknown"
            for tr in group:
                tr.log.append(note)
                if ov.problem:  # never use a file that is not this task's code, never fall back silently
                    what, fix = _refused(ov, kind, name)
                    tr.error, tr.error_stage = f"{what} refused: {ov.problem}; {fix}", kind
        for tr in group:
            tr.produced[kind], tr.used[kind] = produced, used

    def _finish(self, tr: _Trip, target: str) -> CompiledTask:
        final = path_for(target, self.mode)[-1]
        art = tr.used.get(final)
        loaded = b""
        if art is not None and not tr.error:
            loaded = art.data
            if final == "ptx" and art.origin == "generated" and self.nonce:
                tag = f"// qdexplorer session nonce {self.nonce}\n".encode()
                loaded = loaded if loaded.startswith(tag) else tag + loaded
        assert tr.task is not None, "a compile's trips start from the task's IR"
        ct = CompiledTask(tr.name, tr.kernel, target, self.arch, link_unit(tr.task, tr.unit, self.mode),
                          launch_spec(tr.task, tr.module, self.default_block), tr.produced, tr.used, loaded,
                          tr.seconds, tuple(tr.log), tr.error, tr.error_stage, tr.module)
        self.on_task(ct)
        return ct

    # ---- the ll stage's producer, memoised on the task's fingerprint
    def _codegen(self, stage: Stage, task: ir.Task, target: str) -> tuple[TaskModule, bytes, str]:
        """(the module, its text, the tier). The text is kept once, as the bytes of the `ll` artifact:
        the module handed on has its `text` emptied (10 KB a task, twice, was a fifth of a 10,000-task
        compile's memory)."""
        fast = self.fast_math if task.fast_math is None else task.fast_math  # @qd.kernel(fast_math=...) wins
        opts = CodegenOptions(target, libdevice_path() if target == "nvptx" else None, fast, self.vector, self.debug)
        key = (task.fingerprint, opts) if task.fingerprint and self.memo else None
        if key is not None and key in self.modules:
            tm, text = self.modules[key]
            return tm, text, "memo"
        assert stage.codegen is not None
        made = stage.codegen(task, opts)
        tm, text = dataclasses.replace(made, text=""), made.text.encode()
        if key is not None:
            self.modules[key] = (tm, text)
        return tm, text, "codegen"
