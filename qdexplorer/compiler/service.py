"""Compile tasks end to end: codegen per task → cache lookup → pool → overrides.

This is the per-task design: each task module is keyed on its own text, so after an edit only
the changed task misses. Whole-module mode (all of a kernel's tasks in one module, keyed on the
whole text) is kept beside it so the two can be compared on the same edit.
"""
from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field

from ..codegen.math_lib import libdevice_path
from ..codegen.task_module import CodegenError, CodegenOptions, TaskModule, build_task_module
from ..events import CompileEvent
from ..lang import ir
from ..runtime.launch import LaunchSpec
from .cache import PtxCache, cache_key
from .overrides import OverrideStore, sha256
from .stages import DEFAULT_ARCH, DEFAULT_PTX_ISA, CompileRequest


@dataclass
class CompiledTask:
    task: str
    kernel: str
    target: str
    arch: str
    spec: LaunchSpec
    module: TaskModule | None
    output: bytes = b""           # what gets loaded: generated PTX/object, or the override
    generated: bytes = b""        # what the compiler produced (differs from output under an override)
    tier: str = "miss"
    key: str = ""
    seconds: dict = field(default_factory=dict)
    log: list[str] = field(default_factory=list)
    error: str = ""
    override: str | None = None   # None | 'active' | 'stale'
    override_path: str = ""
    unit: str = ""                # the load unit: task name, or kernel name in whole-module mode

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def ptx(self) -> str:
        return self.output.decode() if self.target == "nvptx" else ""

    @property
    def load_hash(self) -> str:
        """Identity of what is loaded: changes when an override is added, edited or reverted."""
        return sha256(self.output)[:16]


class CompileService:
    def __init__(self, compiler, cache: PtxCache | None = None, arch: str = DEFAULT_ARCH,
                 ptx_isa: str = DEFAULT_PTX_ISA, overrides: OverrideStore | None = None, emit=None,
                 mode: str = "per_task", fast_math: bool = False, vector: int = 4, memo_modules: bool = True):
        self.compiler, self.cache = compiler, cache or PtxCache(offline=False)
        self.arch, self.ptx_isa, self.fast_math = arch, ptx_isa, fast_math
        self.overrides = overrides or OverrideStore(None)
        self.emit = emit or (lambda ev: None)
        self.mode = mode
        self.vector = vector
        self.memo_modules = memo_modules
        self.modules: dict = {}  # (task fingerprint, codegen options) -> TaskModule
        # Without the disk tier, a per-session nonce keeps the driver's own compute cache from
        # serving a previous run's SASS (Quadrants does the same).
        self.nonce = None if self.cache.offline else uuid.uuid4().hex[:12]

    def codegen(self, task: ir.Task, target: str) -> TaskModule:
        """Task IR → module text; memoised on the task's fingerprint, so unchanged tasks skip it."""
        opts = CodegenOptions(target, libdevice_path() if target == "nvptx" else None, self.fast_math,
                              self.vector)
        key = (task.fingerprint, opts) if task.fingerprint and self.memo_modules else None
        if key is not None and key in self.modules:
            return self.modules[key]
        tm = build_task_module(task, opts)
        if key is not None:
            self.modules[key] = tm
        return tm

    def compile_tasks(self, tasks: list[ir.Task], target: str,
                      lower_s: dict[str, float] | None = None) -> list[CompiledTask]:
        """`lower_s`: seconds the caller spent lowering each task, reported in its CompileEvent."""
        lower_s = lower_s or {}
        if self.mode == "whole" and tasks:
            return self._compile_whole(tasks, target, sum(lower_s.get(t.name, 0.0) for t in tasks))
        out: list[CompiledTask] = []
        pending: list[tuple[CompiledTask, CompileRequest]] = []
        for t in tasks:
            ct = CompiledTask(t.name, t.kernel, target, self.arch, None, None, unit=t.name)  # type: ignore[arg-type]
            ct.seconds["lower"] = lower_s.get(t.name, 0.0)
            t0 = time.perf_counter()
            try:
                ct.module = self.codegen(t, target)
            except Exception as e:  # noqa: BLE001 - CodegenError, or a codegen bug: either way, this task
                ct.error = str(e) if isinstance(e, CodegenError) else (
                    f"internal codegen error ({type(e).__name__}: {e}) in {t.file}:{t.lines[0]}; please report it")
                ct.spec = LaunchSpec.of(t, [])
                ct.tier = "error"
                out.append(ct)
                continue
            ct.spec = LaunchSpec.of(t, ct.module.abi, ct.module.vector)
            ct.log += ct.module.log
            ct.seconds["codegen"] = time.perf_counter() - t0
            req = self._request(t.name, target, (ct.module.text,), (ct.module.entry,), ct.module.needs_libdevice)
            self._lookup(ct, req, pending)
            out.append(ct)
        self._run(pending)
        for ct in out:
            self._finish(ct)
        return out

    def _request(self, name, target, texts, entries, needs_libdevice) -> CompileRequest:
        return CompileRequest(name, target, texts, entries, self.arch, self.ptx_isa, 3,
                              libdevice_path() if needs_libdevice else None, self.fast_math)

    def _lookup(self, ct: CompiledTask, req: CompileRequest, pending: list):
        t0 = time.perf_counter()
        ct.key = cache_key(req)
        data, tier = self.cache.get(ct.key, PtxCache.namespace(req))
        ct.seconds["cache"] = time.perf_counter() - t0
        ct.tier = tier
        if data is not None:
            ct.generated = data
        else:
            pending.append((ct, req))

    def _run(self, pending):
        if not pending:
            return
        t0 = time.perf_counter()
        results = self.compiler.compile([req for _, req in pending])
        wall = time.perf_counter() - t0
        for (ct, req), res in zip(pending, results):
            ct.seconds["ptx"] = sum(res.seconds.values()) or wall / len(pending)
            ct.log += res.log
            if not res.ok:
                ct.error, ct.tier = res.error, "error"
                continue
            ct.generated = res.output
            self.cache.put(ct.key, PtxCache.namespace(req), res.output)

    def _finish(self, ct: CompiledTask):
        ct.output = ct.generated
        if ct.target == "nvptx" and ct.generated:
            if self.nonce:
                ct.output = _with_nonce(ct.generated, self.nonce)
            ov = self.overrides.get(ct.unit)
            if ov is not None:
                ct.override = ov.status(sha256(ct.generated))
                ct.override_path = str(ov.path)
                ct.output = ov.ptx
                if ov.problem:  # never load a file that is not this task's PTX, never fall back silently
                    ct.output, ct.tier = b"", "error"
                    ct.error = (f"PTX override {ov.path} refused: {ov.problem}; fix it, or run "
                                f"`qdexplorer override revert` for {ct.task}")
                ct.log.append(f"PTX override ({ov.source}) loaded from {ov.path}"
                              + (" — STALE: the generated PTX changed since it was written" if ct.override == "stale" else ""))
        self.emit(CompileEvent(ct.task, ct.kernel, ct.target, ct.tier, ct.key[:16], dict(ct.seconds),
                               len(ct.output), ct.override, ct.error))

    def _compile_whole(self, tasks, target, lower_s) -> list[CompiledTask]:
        kernel = tasks[0].kernel
        t0 = time.perf_counter()
        mods, errors = [], []
        for t in tasks:
            try:
                mods.append(self.codegen(t, target))
            except CodegenError as e:
                errors.append(str(e))
        unit = CompiledTask(kernel, kernel, target, self.arch, None, None, unit=f"{kernel}_kernel_whole")  # type: ignore[arg-type]
        unit.seconds = {"lower": lower_s, "codegen": time.perf_counter() - t0}
        pending: list = []
        if errors:
            unit.error, unit.tier = "; ".join(errors), "error"
        else:
            req = self._request(unit.unit, target, tuple(m.text for m in mods), tuple(m.entry for m in mods),
                                any(m.needs_libdevice for m in mods))
            self._lookup(unit, req, pending)
            self._run(pending)
        out = []
        for t, m in zip(tasks, mods or [None] * len(tasks)):
            ct = CompiledTask(t.name, kernel, target, self.arch, LaunchSpec.of(t, m.abi if m else [], m.vector if m else 1), m,
                              tier=unit.tier, key=unit.key, error=unit.error, unit=unit.unit)
            ct.generated, ct.seconds, ct.log = unit.generated, unit.seconds, unit.log
            ct.output = ct.generated
            if target == "nvptx" and self.nonce and ct.generated:
                ct.output = _with_nonce(ct.generated, self.nonce)
            out.append(ct)
        self.emit(CompileEvent(unit.unit, kernel, target, unit.tier, unit.key[:16], dict(unit.seconds),
                               len(unit.generated), None, unit.error))
        return out


def _with_nonce(ptx: bytes, nonce: str) -> bytes:
    tag = f"// qdexplorer session nonce {nonce}\n".encode()
    return ptx if ptx.startswith(tag) else tag + ptx
