"""The orchestrator: commands in, typed events out; no Qt.

The GUI, the CLI and tests drive the same Engine. It lowers kernels, walks each task through
the compile pipeline (cache → pool → overrides, dumps), loads the results on a device (a worker
process, or in-process), builds each workload's inputs once, here, and streams its launches.
"""
from __future__ import annotations

import copy
import itertools
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .compiler.artifacts import CompiledTask
from .compiler.asm_print import write_ptx
from .compiler.cache import PtxCache
from .compiler.compile_index import CompileIndex
from .compiler.dump import env_load_kinds
from .compiler.overrides import OverrideStore
from .compiler.pipeline import MODES, Pipeline
from .compiler.pool import CompilePool, InlineCompiler
from .events import (CompileFinished, KernelLowered, LaunchesTimed, ProjectFailed, ProjectOpened, RunFinished,
                     RunStarted, TaskCompiled, TaskLoaded, TasksUnloaded, WorkerFaulted)
from .lang.arg_check import check_call_args
from .lang.bounds import trip_counts
from .lang.errors import QdError
from .lang.fingerprint import TaskMemo
from .project.loader import Project, load_project
from .runtime.device import LoadItem, LocalDevice, RunJob, WorkloadResult
from .runtime.faults import WorkerFault
from .runtime.targets import TARGET, check_backend, pick_arch  # noqa: F401 - re-exported

_run_ids = itertools.count(1)


@dataclass
class KernelTasks:
    kernel: str
    tasks: list = field(default_factory=list)
    lower_s: float = 0.0
    error: str = ""


def _out_of_memory(workload: str, args: dict, what: str) -> str:
    size = sum(v.nbytes for v in args.values() if isinstance(v, np.ndarray))
    return (f"workload '{workload}': its inputs ({size / (1 << 20):.0f} MiB) and {what} do not fit in memory; "
            f"make the inputs smaller")


class Engine:
    def __init__(self, project: str | Path | Project | None = None, backend: str | None = None,
                 arch: str | None = None, in_process: bool = False, offline_cache: bool | None = None,
                 cache_dir: str | None = None, mode: str | None = None, load_ptx: str | None = None,
                 load_kinds: tuple[str, ...] | None = None, dump_dir: str | None = None,
                 workers: int | None = None, launch_timeout: float = 60.0, use_cache: bool = True,
                 memo: bool = True, overrides_dir: str | None = None, fast_math: bool | None = None,
                 debug: bool | None = None):
        self.project = project if isinstance(project, Project) else load_project(project)
        cfg = self.project.config
        self.backend = backend or cfg.backend or "cpu"
        check_backend(self.backend)
        self.arch = pick_arch(arch, cfg.arch)
        self.in_process = in_process
        self.listeners: list = []
        offline = offline_cache if offline_cache is not None else cfg.offline_cache
        self.cache = PtxCache(cache_dir or cfg.cache_dir, offline=offline, enabled=use_cache)
        self.overrides = OverrideStore(self.project.path if self.project.path.is_dir() else None, load_ptx,
                                       load_kinds or env_load_kinds() or ("ptx",), folder=overrides_dir)
        self.compiler = InlineCompiler() if in_process else CompilePool(workers)
        self.memo = TaskMemo(enabled=memo and use_cache)
        self.pipeline = Pipeline(self.compiler, self.cache, self.arch, overrides=self.overrides, dump_dir=dump_dir,
                                 mode=mode or cfg.mode or "per_task", memo=self.memo.enabled, default_block=cfg.block_dim,
                                 fast_math=cfg.fast_math if fast_math is None else fast_math,
                                 on_task=self._task_compiled,
                                 debug=bool(cfg.debug if debug is None else debug))  # --debug / toml debug
        self.launch_timeout = launch_timeout
        self.flush_l2 = False   # evict device caches before every launch (benchmark comparisons set it)
        self._device = None
        self._stop = threading.Event()
        self.compiled: dict[str, CompiledTask] = {}   # "<target>:<task>" -> latest
        self.specs: dict[str, tuple] = {}   # kernel -> the argument specialisation its tasks were lowered for

    @property
    def mode(self) -> str:
        return self.pipeline.mode

    def refresh(self) -> Project:
        """Re-read the project's files (after an edit); unchanged tasks are reused from the memo."""
        try:
            self.project = load_project(self.project.path)
        except QdError as e:
            self.emit(ProjectFailed(str(self.project.path), str(e)))
            raise
        self.announce()
        return self.project

    def announce(self):
        """Tell listeners which project is open (its kernels, workloads and files)."""
        p = self.project
        self.emit(ProjectOpened(str(p.path), p.name, tuple(p.kernels), tuple(sorted(p.workloads)),
                                tuple(str(f) for f in p.files)))

    # -- events
    def on(self, listener):
        self.listeners.append(listener)
        return listener

    def emit(self, event):
        for cb in list(self.listeners):
            cb(event)

    def _task_compiled(self, ct: CompiledTask):
        self.compiled[f"{ct.target}:{ct.task}"] = ct
        self.emit(TaskCompiled(ct.task, ct.kernel, ct.target, ct.tier, ct.key[:16], dict(ct.seconds),
                               len(ct.output), ct.override, ct.error, ct))

    # -- lowering and compiling
    def kernel_tasks(self, names: list[str] | None = None) -> list[KernelTasks]:
        out = []
        for name, k in self.project.kernels.items():
            if names and name not in names:
                continue
            kt = KernelTasks(name)
            t0 = time.perf_counter()
            try:
                spec = self.specs[name] = self._spec(k)
                kt.tasks = k.tasks(spec, memo=self.memo)
            except QdError as e:
                kt.error = str(e)
            kt.lower_s = time.perf_counter() - t0
            self.emit(KernelLowered(name, tuple(kt.tasks), kt.lower_s, kt.error))
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
            args = wls[0].bound_args(0)
            return kernel.spec_for(tuple(args[n] for n in kernel.arg_names))

    def compile(self, kernels: list[str] | None = None, target: str | None = None) -> tuple[list[KernelTasks], list[CompiledTask]]:
        target = target or TARGET[self.backend]
        t0 = time.perf_counter()
        kts = self.kernel_tasks(kernels)
        lower = {t.name: kt.lower_s / max(1, len(kt.tasks)) for kt in kts for t in kt.tasks}
        # one batch across kernels, so a cold compile fills every pool worker
        compiled = self.pipeline.compile([t for kt in kts for t in kt.tasks], target, lower)
        # what `show` / `override list` read later without importing the project
        CompileIndex(self.cache, self.project.path).record(target, self.arch, kts, compiled, complete=kernels is None)
        tiers: dict[str, int] = {}
        for ct in compiled:
            tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
        self.emit(CompileFinished(target, len(compiled), tiers, sum(1 for ct in compiled if ct.error)
                                  + sum(1 for kt in kts if kt.error), time.perf_counter() - t0))
        if kernels is None:
            self._forget_vanished({ct.task for ct in compiled}, target)
        if self.project.config.print_kernel_asm:
            self._print_asm(kts, compiled, target)
        return kts, compiled

    def _print_asm(self, kts: list[KernelTasks], compiled: list[CompiledTask], target: str):
        """The project's `print_kernel_asm`: each task's PTX beside the kernels (CPU runs compile it too,
        quietly: those nvptx results are for the files only, not events)."""
        folder = self.project.path if self.project.path.is_dir() else self.project.path.parent
        if target != "nvptx":
            quiet = copy.copy(self.pipeline)
            quiet.on_task = lambda ct: None
            compiled = quiet.compile([t for kt in kts for t in kt.tasks], "nvptx")
        try:
            write_ptx(folder, compiled)
        except OSError as e:
            warnings.warn(f"print_kernel_asm: cannot write PTX into {folder} ({e.strerror or e})", stacklevel=2)

    def _forget_vanished(self, alive: set[str], target: str):
        """Tasks that no longer exist (a kernel edited or removed): drop them, unload their modules."""
        for key in [k for k in self.compiled if k.startswith(target + ":") and k.split(":", 1)[1] not in alive]:
            del self.compiled[key]
        if self._device is not None and target == TARGET[self.backend]:
            gone = [t for t in self._device.loaded_tasks() if t not in alive]
            if gone:
                self._device.unload(gone)
                self.emit(TasksUnloaded(tuple(gone)))

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

    def set_backend(self, backend: str):
        """Switch backends; the next run starts the other device worker."""
        if backend != self.backend:
            check_backend(backend)
            self.close_device()
            self.backend = backend

    def set_mode(self, mode: str):
        """Switch assembly modes (per_task, whole, culink); modules are loaded afresh in the new layout."""
        if mode != self.pipeline.mode:
            if mode not in MODES:
                raise QdError(f"unknown assembly mode {mode!r} (per_task, whole or culink)")
            self.close_device()
            self.pipeline.mode = mode

    def load(self, compiled: list[CompiledTask]):
        items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled if ct.ok]
        results = self.device.load(items) if items else []
        for r in results:
            self.emit(TaskLoaded(r.task, self.backend, r.ms, r.resources, r.error))
        return results

    def stop(self):
        """Ask the current run to stop after the launch in flight (thread-safe)."""
        self._stop.set()

    def run(self, workloads: list[str] | None = None, repeat: int = 1, seed: int = 0,
            warmup: int = 0) -> list[WorkloadResult]:
        names = workloads or list(self.project.workloads)
        if not names:
            raise QdError(f"project {self.project.path} has no @qd.workload to run")
        self._stop.clear()
        results = []
        for name in names:
            if self._stop.is_set():
                break
            results.append(self._run_one(name, repeat, seed, warmup))
        return results

    def _run_one(self, name: str, repeat: int, seed: int, warmup: int) -> WorkloadResult:
        wl = self.project.workload(name)
        kernel = wl.kernel.name
        res = WorkloadResult(name, kernel, self.backend, False)
        kts, compiled = self.compile([kernel])
        tasks = kts[0].tasks
        run_id = next(_run_ids)
        self.emit(RunStarted(run_id, name, kernel, self.backend, repeat, tuple(t.name for t in tasks)))
        cuda_only = [t.name for t in tasks if t.uses_block_features]
        bad = [ct for ct in compiled if not ct.ok]
        if kts[0].error:
            res.error = kts[0].error
        elif self.backend == "cpu" and cuda_only:
            res.skipped = f"{cuda_only[0]} uses qd.simt.block features (CUDA only)"
        elif bad:
            res.error, res.fault_task = f"{bad[0].task}: {bad[0].error}", bad[0].task
        else:
            self._launch_workload(wl, compiled, tasks, res, run_id, repeat, seed, warmup)
        self.emit(RunFinished(run_id, name, res.status, res))
        return res

    def _launch_workload(self, wl, compiled, tasks, res, run_id, repeat, seed, warmup):
        t0 = time.perf_counter()
        try:
            loads = self.load(compiled)
        except WorkerFault as f:
            self._fault(res, f)
            return
        failed = [r for r in loads if not r.ok]
        if failed:
            res.error, res.fault_task = f"{failed[0].task}: load failed: {failed[0].error}", failed[0].task
            return
        try:
            args = wl.make_args(seed)   # built once, here: the worker never imports the project
        except Exception as e:  # noqa: BLE001 - the user's workload code
            res.error = f"workload '{wl.name}' failed to build its inputs: {type(e).__name__}: {e}"
            return
        try:  # against the specialisation the tasks were compiled for: nothing misread, nothing overflows
            args = check_call_args(wl.kernel.name, self.specs[wl.kernel.name], args, tasks)
        except QdError as e:
            res.error = f"workload '{wl.name}': {e}"
            return
        try:  # the check compares outputs with a copy of the inputs: a workload without one needs none
            before = {k: (v.copy() if isinstance(v, np.ndarray) else copy.copy(v)) for k, v in args.items()} \
                if wl.check is not None else {}
        except MemoryError:
            res.error = _out_of_memory(wl.name, args, "a copy of them for the check")
            return
        try:
            trips = trip_counts(tasks, args)
        except (ValueError, KeyError) as e:
            res.error = f"{wl.kernel.name}: cannot size the launch: {e}"
            return
        job = RunJob(wl.name, wl.kernel.name, tuple(ct.task for ct in compiled), trips, repeat, warmup,
                     self.flush_l2)

        def sink(kind, payload):
            if kind == "timings":
                res.timings.extend(payload)
                self.emit(LaunchesTimed(run_id, wl.name, tuple(payload)))
            elif kind == "checkpoint":
                try:
                    res.check_error = wl.run_check(before, args)
                except Exception as e:  # noqa: BLE001 - a broken check is the user's bug; show where
                    res.check_error = f"check raised {type(e).__name__}: {e}"
        try:
            if self.in_process:
                out = self.device.run(job, args, sink, self._stop.is_set)
            else:
                out = self.device.run(job, args, sink, self._stop)
        except WorkerFault as f:
            self._fault(res, f)
            return
        except MemoryError:
            res.error = _out_of_memory(wl.name, args, "the device's copy of them")
            return
        res.error, res.fault_task, res.stopped = out.error, out.fault_task, out.stopped
        res.ok = res.check_error is None and not res.error
        res.seconds = time.perf_counter() - t0

    def _fault(self, res: WorkloadResult, f: WorkerFault):
        res.error, res.fault_task, res.fault = str(f), f.task, f.fault
        self.emit(WorkerFaulted(f.task, self.backend, f.fault))

    def close_device(self):
        if self._device is not None:
            self._device.close()
            self._device = None

    def close(self):
        self.close_device()
        self.compiler.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
