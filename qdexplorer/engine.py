"""The orchestrator: commands in, events out; no Qt.

The GUI, the CLI, tests and plain scripts drive the same Engine. It lowers kernels, asks the
CompileService for each task's PTX/object (cache → pool), hands the results to a device (a
worker process, or in-process for scripts) and forwards every step as an event.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .compiler.artifacts import ArtifactIndex
from .compiler.cache import PtxCache
from .compiler.overrides import OverrideStore
from .compiler.pool import CompilePool, InlineCompiler
from .compiler.service import CompiledTask, CompileService
from .compiler.stages import DEFAULT_ARCH
from .events import FaultEvent, LaunchEvent, LoadEvent
from .lang.errors import QdError
from .lang.fingerprint import TaskMemo
from .project.loader import Project, load_project
from .runtime.device import LoadItem, LocalDevice, WorkloadResult
from .runtime.cuda.detect import cuda_status

TARGET = {"cpu": "host", "cuda": "nvptx"}


@dataclass
class KernelTasks:
    kernel: str
    tasks: list = field(default_factory=list)
    lower_s: float = 0.0
    error: str = ""


def pick_arch(flag: str | None, project_arch: str | None = None) -> str:
    """sm_XX by flag, then project setting, then the detected GPU, then sm_90."""
    if flag:
        return flag
    if project_arch:
        return project_arch
    st = cuda_status()
    return st.arch if st.available else DEFAULT_ARCH


class Engine:
    def __init__(self, project: str | Path | Project | None = None, backend: str | None = None,
                 arch: str | None = None, in_process: bool = False, offline_cache: bool | None = None,
                 cache_dir: str | None = None, mode: str = "per_task", load_ptx: str | None = None,
                 workers: int | None = None, launch_timeout: float = 60.0, use_cache: bool = True,
                 memo: bool = True):
        self.project = project if isinstance(project, Project) else load_project(project)
        cfg = self.project.config
        self.backend = backend or cfg.backend or "cpu"
        if self.backend not in TARGET:
            raise QdError(f"unknown backend {self.backend!r}: choose cpu or cuda")
        if self.backend == "cuda" and not cuda_status().available:
            raise QdError(f"the cuda backend is unavailable here: {cuda_status().reason}; use the cpu backend "
                          f"(PTX is still generated)")
        self.arch = pick_arch(arch, cfg.arch)
        self.in_process = in_process
        self.listeners: list = []
        offline = offline_cache if offline_cache is not None else cfg.offline_cache
        self.cache = PtxCache(cache_dir or cfg.cache_dir, offline=offline, enabled=use_cache)
        self.overrides = OverrideStore(self.project.path if self.project.path.is_dir() else None, load_ptx)
        self.compiler = InlineCompiler() if in_process else CompilePool(workers)
        self.service = CompileService(self.compiler, self.cache, self.arch, overrides=self.overrides,
                                      emit=self.emit, mode=mode)
        self.launch_timeout = launch_timeout
        self.memo = TaskMemo(enabled=memo and use_cache)
        self.service.memo_modules = self.memo.enabled
        self._device = None
        self.compiled: dict[str, CompiledTask] = {}

    def refresh(self) -> Project:
        """Re-read the project's files (after an edit); unchanged tasks are reused from the memo."""
        self.project = load_project(self.project.path)
        return self.project

    # -- events
    def on(self, listener):
        self.listeners.append(listener)
        return listener

    def emit(self, event):
        for cb in list(self.listeners):
            cb(event)

    # -- lowering and compiling
    def kernel_tasks(self, names: list[str] | None = None) -> list[KernelTasks]:
        out = []
        for name, k in self.project.kernels.items():
            if names and name not in names:
                continue
            kt = KernelTasks(name)
            t0 = time.perf_counter()
            try:
                spec = self._spec(k)
                kt.tasks = k.tasks(spec, memo=self.memo)
            except QdError as e:
                kt.error = str(e)
            kt.lower_s = time.perf_counter() - t0
            out.append(kt)
        if names:
            unknown = set(names) - {kt.kernel for kt in out}
            if unknown:
                raise QdError(f"no kernel named {', '.join(sorted(unknown))} in {self.project.path} "
                              f"(known: {', '.join(sorted(self.project.kernels))})")
        return out

    def _spec(self, kernel):
        try:
            return kernel.spec_for()
        except QdError:
            wls = self.project.workloads_for(kernel.name)
            if not wls:
                raise
            args = wls[0].make_args(0)
            return kernel.spec_for(tuple(args[n] for n in kernel.arg_names))

    def compile(self, kernels: list[str] | None = None, target: str | None = None) -> tuple[list[KernelTasks], list[CompiledTask]]:
        target = target or TARGET[self.backend]
        kts = self.kernel_tasks(kernels)
        lower = {t.name: kt.lower_s / max(1, len(kt.tasks)) for kt in kts for t in kt.tasks}
        compiled: list[CompiledTask] = []
        if self.service.mode == "whole":
            for kt in kts:
                compiled += self.service.compile_tasks(kt.tasks, target, lower)
        else:  # one batch across kernels, so a cold compile fills every pool worker
            compiled = self.service.compile_tasks([t for kt in kts for t in kt.tasks], target, lower)
        default_block = self.project.config.block_dim
        for ct in compiled:
            if default_block and ct.spec is not None and ct.spec.block_dim is None and ct.spec.type == "range_for":
                ct.spec.block_dim = default_block  # qdexplorer.toml's block_dim, for loops without loop_config
            self.compiled[f"{target}:{ct.task}"] = ct
        # what `show` / `override list` read later without importing the project
        ArtifactIndex(self.cache, self.project.path).record(target, self.arch, kts, compiled, complete=not kernels)
        return kts, compiled

    # -- devices and runs
    @property
    def device(self):
        if self._device is None:
            if self.in_process:
                self._device = LocalDevice(self.backend)
            else:
                from .runtime.worker import DeviceClient
                self._device = DeviceClient(self.backend, timeout=self.launch_timeout)
        return self._device

    def load(self, compiled: list[CompiledTask]):
        items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit) for ct in compiled if ct.ok]
        results = self.device.load(items) if items else []
        for r in results:
            self.emit(LoadEvent(r.task, self.backend, r.ms, r.resources, r.error))
        return results

    def run(self, workloads: list[str] | None = None, repeat: int = 1, seed: int = 0) -> list[WorkloadResult]:
        names = workloads or list(self.project.workloads)
        if not names:
            raise QdError(f"project {self.project.path} has no @qd.workload to run")
        results = []
        for name in names:
            wl = self.project.workload(name)
            kts, compiled = self.compile([wl.kernel.name])
            if kts[0].error:
                results.append(WorkloadResult(name, wl.kernel.name, self.backend, False, error=kts[0].error))
                continue
            cuda_only = [t.name for t in kts[0].tasks if t.uses_block_features]
            if self.backend == "cpu" and cuda_only:
                results.append(WorkloadResult(name, wl.kernel.name, self.backend, False,
                                              skipped=f"{cuda_only[0]} uses qd.simt.block features (CUDA only)"))
                continue
            bad = [ct for ct in compiled if not ct.ok]
            if bad:
                results.append(WorkloadResult(name, wl.kernel.name, self.backend, False,
                                              error=f"{bad[0].task}: {bad[0].error}", fault_task=bad[0].task))
                continue
            loads = self.load(compiled)
            failed = [r for r in loads if not r.ok]
            if failed:
                results.append(WorkloadResult(name, wl.kernel.name, self.backend, False,
                                              error=f"{failed[0].task}: load failed: {failed[0].error}",
                                              fault_task=failed[0].task))
                continue
            kwargs = {} if self.in_process else {"timeout": self.launch_timeout}
            res = self.device.run_workload(str(self.project.path), name, [ct.task for ct in compiled],
                                           repeat, seed, **kwargs)
            res.kernel = wl.kernel.name
            if res.fault_task and not res.ok and "restarted" in res.error:
                self.emit(FaultEvent(res.fault_task, self.backend, res.error))
            for tm in res.timings:
                self.emit(LaunchEvent(tm.task, tm.kernel, tm.backend, tm.ms, tm.grid, tm.block, tm.repeat, name))
            results.append(res)
        return results

    def close(self):
        if self._device is not None:
            self._device.close()
            self._device = None
        self.compiler.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class InlineRunner:
    """Kernel calls from plain scripts: compile in-process on first call, then launch in place."""

    def __init__(self, arch: str = "cpu", **options):
        self.backend = "cuda" if arch == "cuda" else "cpu"
        self.target = TARGET[self.backend]
        self.service = CompileService(InlineCompiler(), PtxCache(options.get("cache_dir"),
                                                                 offline=options.get("offline_cache")),
                                      pick_arch(options.get("sm")))
        self.device = LocalDevice(self.backend)
        self.loaded: dict = {}

    def call(self, kernel, args: dict):
        ordered = tuple(args[n] for n in kernel.arg_names)
        spec = kernel.spec_for(ordered)
        key = (id(kernel), spec)
        names = self.loaded.get(key)
        if names is None:
            tasks = kernel.tasks(spec)
            compiled = self.service.compile_tasks(tasks, self.target)
            bad = [ct for ct in compiled if not ct.ok]
            if bad:
                raise QdError(f"{bad[0].task}: {bad[0].error}")
            for r in self.device.load([LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit) for ct in compiled]):
                if not r.ok:
                    raise QdError(f"{r.task}: load failed: {r.error}")
            names = self.loaded[key] = [ct.task for ct in compiled]
        self.device.run_args(names, args)

    def close(self):
        self.device.close()
