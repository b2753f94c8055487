"""The orchestrator: commands in, typed events out; no Qt.

The CLI, bench, the window and the Quadrants bridge drive the same Engine through its public
methods and nothing else; its state is private. It lowers kernels, walks each task through the
compile pipeline (cache → pool → overrides, dumps), loads the results on a `Device` (a worker
process, or in-process), builds each workload's inputs once, here, and streams its launches.
Every result it produces is an event, folded first into its own Session, which is the one store
that `compiled_for` and the CLI read (the window mirrors the same events on its thread).
"""
from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .compiler.artifacts import CompiledTask
from .compiler.cache import PtxCache
from .compiler.dump import env_load_kinds
from .compiler.overrides import Override, OverrideStore
from .compiler.pipeline import MODES, Pipeline
from .compiler.pool import CompilePool, InlineCompiler
from .compiler.resources import estimate_resources
from .counters.cache import CountersCache
from .counters.collect import CountersResult, collect
from .counters.model import no_counters
from .engine_parts.compile_step import Compiled, CompileStep, KernelTasks
from .engine_parts.device_place import DevicePlace
from .engine_parts.task_code import TaskCode
from .engine_parts.workload_run import WorkloadRun
from .events import CountersMeasured, Event, ProjectFailed, ProjectOpened, TaskCompiled, WorkloadResult
from .lang.calls.arg_check import check_call_args
from .lang.calls.bounds import trip_counts
from .ir.errors import QdError
from .lang.tasks.fingerprint import TaskMemo
from .project.data_folder import override_store
from .project.loader import Project, load_project
from .runtime.device_api import LoadItem, RunJob
from .runtime.targets import TARGET, check_backend, pick_arch
from .session import Session

__all__ = ["Compiled", "Engine", "EngineOptions", "KernelTasks"]   # Compiled and KernelTasks: compile_step's, named here too

Listener = Callable[[Event], None]


class _HiddenOverrides(OverrideStore):
    """The project's overrides with those of `task` (or all, for None) hidden from the pipeline."""

    def __init__(self, inner: OverrideStore, task: str | None):
        self.__dict__.update(inner.__dict__)
        self._hidden = task

    def get(self, task: str, kind: str = "ptx") -> Override | None:
        return None if self._hidden is None or task == self._hidden else super().get(task, kind)


@dataclass(frozen=True)
class EngineOptions:
    """How an Engine is set up beyond its project, in one record (the CLI and the window build one;
    tests pass the fields they need as keywords). None: the project's qdexplorer.toml, else the default."""
    backend: str | None = None
    arch: str | None = None
    in_process: bool = False            # compile and run in this process (scripts, tests): no pool, no worker
    offline_cache: bool | None = None
    cache_dir: str | None = None
    mode: str | None = None             # assembly mode: per_task, whole, culink
    load_ptx: str | None = None         # a load folder (QUADRANTS_LOAD_PTX's)
    load_kinds: tuple[str, ...] | None = None
    dump_dir: str | None = None
    workers: int | None = None          # compile pool processes (None: one per core)
    launch_timeout: float = 60.0        # seconds a launch may stay silent before it counts as hung
    use_cache: bool = True
    memo: bool = True
    fast_math: bool | None = None
    block_dim: int | None = None        # threads per block of range_for tasks without their own loop_config
    debug: bool | None = None
    # `cluster` (ray://HOST:PORT, auto or local) runs tasks in a Ray actor there, on `node` (a Ray node
    # id) if given, on its GPU `gpu` (the index nvidia-smi shows) if given, else on the GPU Ray assigns;
    # compilation stays here. None: a local device (no Ray is imported).
    cluster: str | None = None
    node: str | None = None
    gpu: int | None = None
    ncu: str | None = None              # the Nsight Compute command for counters (None: the default)

    def for_another_device(self) -> "EngineOptions":
        """The same set-up on a device Ray picks: what a sweep's second, third... engine is made from."""
        return dataclasses.replace(self, node=None, gpu=None)


class Engine:
    """One open project on one backend. Not thread-safe: drive it from one thread (the window's
    engine thread, the CLI's main thread); only `stop` may be called from another."""

    def __init__(self, project: str | Path | Project | None = None, options: EngineOptions | None = None,
                 **settings: Any):
        """`options` (or its fields as keywords, which take precedence): how the engine is set up
        beyond the project; see `EngineOptions`."""
        o = dataclasses.replace(options or EngineOptions(), **settings)   # an unknown keyword: TypeError
        self._options = o
        self._project = project if isinstance(project, Project) else load_project(project)
        cfg = self._project.config
        backend = o.backend or cfg.backend or "cpu"
        check_backend(backend, here=o.cluster is None)   # a cluster's GPU needs none on this machine
        self._arch = pick_arch(o.arch, cfg.arch)
        self._session = Session()
        self._listeners: list[Listener] = [self._session.apply]
        offline = o.offline_cache if o.offline_cache is not None else cfg.offline_cache
        self._cache = PtxCache(o.cache_dir or cfg.cache_dir, offline=offline, enabled=o.use_cache)
        # where overrides live is the project layer's rule (a read-only project keeps them in the
        # user data folder), so the CLI and the window agree
        self._overrides = override_store(self._project.path, o.load_ptx,
                                         o.load_kinds or env_load_kinds() or ("ptx",))
        self._compiler = InlineCompiler() if o.in_process else CompilePool(o.workers)
        self._memo = TaskMemo(enabled=o.memo and o.use_cache)
        self._pipeline = Pipeline(self._compiler, self._cache, self._arch, overrides=self._overrides,
                                  dump_dir=o.dump_dir, mode=o.mode or cfg.mode or "per_task",
                                  memo=self._memo.enabled,
                                  default_block=cfg.block_dim if o.block_dim is None else o.block_dim,
                                  fast_math=cfg.fast_math if o.fast_math is None else o.fast_math,
                                  on_task=lambda ct: self._emit(TaskCompiled(ct)),
                                  debug=bool(cfg.debug if o.debug is None else o.debug))  # --debug / toml debug
        self._device = DevicePlace(backend, in_process=o.in_process, launch_timeout=o.launch_timeout,
                                   cluster=o.cluster, node=o.node, gpu=o.gpu)
        self._stop = threading.Event()
        self._compile = CompileStep(lambda: self._project, self._pipeline, self._cache, self._memo, self._session,
                                    self._device, self._emit)
        self._runs = WorkloadRun(lambda: self._project, self._device, self._compile, lambda ks: self.compile(ks), self._stop,
                                 self._emit)
        self._code = TaskCode(self.compiled_for, self._pipeline, self._emit)
        self._ncu = o.ncu
        self._counters_cache = CountersCache(self._cache.folder / "counters",
                                             enabled=o.use_cache and bool(self._cache.offline))

    # ---- what is open
    @property
    def project(self) -> Project:
        return self._project

    @property
    def backend(self) -> str:
        return self._device.backend

    @property
    def target(self) -> str:
        """The code target the current backend runs: 'nvptx' (cuda) or 'host' (cpu)."""
        return TARGET[self._device.backend]

    @property
    def arch(self) -> str:
        return self._arch

    @property
    def mode(self) -> str:
        return self._pipeline.mode

    @property
    def options(self) -> EngineOptions:
        """How this engine is set up now, as one record: the options it was made with, with what was
        switched since (backend, assembly mode) and what the project's file chose where they said None.
        `Engine(project, engine.options)` makes an engine set up the same way."""
        p, d = self._pipeline, self._device
        return dataclasses.replace(self._options, backend=d.backend, arch=self._arch, mode=p.mode,
                                   fast_math=p.fast_math, block_dim=p.default_block, cluster=d.cluster,
                                   node=d.node, gpu=d.gpu)

    def twins(self, n: int) -> list["Engine"]:
        """`n` more engines of this project set up as this one, each on a device of its own (a sweep
        over several devices): every option is kept but the device, which Ray picks."""
        return [Engine(self._project, self.options.for_another_device()) for _ in range(n)]

    @property
    def session(self) -> Session:
        """The engine's results, folded from its own events: read it, never write it."""
        return self._session

    @property
    def cluster(self) -> str | None:
        """The Ray cluster the tasks run on (its address as given), or None for this machine."""
        return self._device.cluster

    def device_info(self) -> dict[str, Any]:
        """What runs the tasks: the backend's description, and for a cluster the node and GPU."""
        return self._device.info()

    def cache_info(self) -> dict[str, Any]:
        """The PTX cache's counters and folder, the saved counter profiles' folder (None: off), and the
        lowering memo's hits and misses."""
        counters = self._counters_cache.folder if self._counters_cache.enabled else None
        return vars(self._cache.stats) | {"folder": str(self._cache.folder), "offline": self._cache.offline,
                                          "counters_folder": str(counters) if counters else None,
                                          "memo": {"hits": self._memo.hits, "misses": self._memo.misses}}

    def load_folder_report(self, tasks: list[str]) -> tuple[Path | None, list[str], bool]:
        """(the --load-ptx folder, its files that match no task, whether any file matched)."""
        unmatched, matched = self._overrides.unmatched_load_files(tasks)
        return self._overrides.load_dir, unmatched, matched

    def warm_up(self) -> None:
        """Start the compile pool's workers now (about a second each to spawn), so that the first
        compile the user waits for, or a benchmark times, does not pay for it."""
        if isinstance(self._compiler, CompilePool):
            self._compiler.warm()

    # ---- events
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(event)` for every event from now on; returns the function that stops it."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
        return unsubscribe

    def _emit(self, event: Event) -> None:
        for cb in list(self._listeners):
            cb(event)

    def announce(self) -> None:
        """Tell listeners which project is open (its kernels, workloads and files)."""
        p = self._project
        self._emit(ProjectOpened(str(p.path), p.name, tuple(p.kernels), tuple(sorted(p.workloads)),
                                 tuple(str(f) for f in p.files)))

    def refresh(self) -> Project:
        """Re-read the project's files (after an edit); unchanged tasks are reused from the memo."""
        try:
            # a project opened with files left out (Project.broken) keeps going on a reload, so an edit of
            # another file is not held up by one that still does not load; otherwise a failed reload keeps
            # the last good version of everything
            self._project = load_project(self._project.path, keep_going=bool(self._project.broken))
        except QdError as e:
            self._emit(ProjectFailed(str(self._project.path), str(e)))
            raise
        self.announce()
        return self._project

    def compile(self, kernels: list[str] | None = None, target: str | None = None) -> Compiled:
        """Lower `kernels` (default: all) and compile each task for `target` (default: the backend's)."""
        return self._compile.compile(kernels, target or self.target, self._arch, self.target)

    def compiled_for(self, task: str, target: str | None = None) -> CompiledTask | None:
        """The latest result of `task` for `target` (default: the backend's), or None."""
        return self._session.compiled.get((target or self.target, task))

    @property
    def code(self) -> TaskCode:
        """What a compiled task is beyond its PTX: `code.optimised_ll(task)`, `code.sass(task)`,
        `code.resources(task)` (the code views' questions, asked on demand)."""
        return self._code

    @contextlib.contextmanager
    def variant(self, *, hide_overrides: bool | str = False, mode: str | None = None, block_dim: int | None = None,
                fast_math: bool | None = None) -> Iterator[None]:
        """Compile and run inside the block as another variant of the project: with the overrides
        hidden (True: all; a task name: that task's), in another assembly mode, with another default
        `block_dim` (range_for tasks without loop_config(block_dim=...)) or `fast_math` setting
        (kernels without their own). The generated side of a comparison, or a sweep's variants,
        compile to cached artifacts; the device only swaps what is loaded."""
        if mode is not None and mode not in MODES:
            raise QdError(f"unknown assembly mode {mode!r} (per_task, whole or culink)")
        if block_dim is not None and not (type(block_dim) is int and 1 <= block_dim <= 1024):
            raise QdError(f"block_dim must be an integer from 1 to 1024, got {block_dim!r}")
        p = self._pipeline
        saved = p.overrides, p.mode, p.default_block, p.fast_math
        if hide_overrides:
            p.overrides = _HiddenOverrides(self._overrides, None if hide_overrides is True else str(hide_overrides))
        if mode is not None:
            p.mode = mode
        if block_dim is not None:
            p.default_block = block_dim
        if fast_math is not None:
            p.fast_math = fast_math
        try:
            yield
        finally:
            p.overrides, p.mode, p.default_block, p.fast_math = saved

    # ---- overrides
    def set_override(self, task: str, text: str | bytes, kind: str = "ptx", target: str = "nvptx") -> Path:
        """Save `text` as the task's `kind` ('ptx' or 'll') override, recording the generated text it
        was derived from (so a later kernel edit shows it stale); the next compile uses it."""
        ct = self.compiled_for(task, target if kind == "ll" else "nvptx")
        if ct is None:
            raise QdError(f"{task} is not compiled yet: compile before saving an override of it")
        produced = ct.produced.get(kind)
        if produced is None:
            raise QdError(f"{task} has no generated {kind} to derive an override from: {ct.error}")
        return self._overrides.write(task, text, produced.data, kind=kind, target=target if kind == "ll" else None)

    def revert_override(self, task: str, kinds: tuple[str, ...] = ("ptx", "ll")) -> bool:
        """Drop the task's overrides of `kinds`; False when there was none."""
        return self._overrides.revert(task, kinds)

    def override(self, task: str, kind: str = "ptx") -> Override | None:
        """The task's saved override of `kind`, if any (a refused one carries its `problem`)."""
        return self._overrides.get(task, kind)

    # ---- devices and runs
    def set_backend(self, backend: str) -> None:
        """Switch backends; the next run starts the other device."""
        self._device.switch(backend)

    def set_mode(self, mode: str) -> None:
        """Switch assembly modes (per_task, whole, culink); modules are loaded afresh in the new layout."""
        if mode != self._pipeline.mode:
            if mode not in MODES:
                raise QdError(f"unknown assembly mode {mode!r} (per_task, whole or culink)")
            self.close_device()
            self._pipeline.mode = mode

    def stop(self) -> None:
        """Ask the current run to stop after the launch in flight (thread-safe)."""
        self._stop.set()

    def run(self, workloads: list[str] | None = None, repeat: int = 1, seed: int = 0, warmup: int = 0,
            flush_l2: bool = False, keep_stop: bool = False) -> list[WorkloadResult]:
        """Run `workloads` (default: all), each `repeat` timed passes after `warmup` untimed ones; the
        first timed pass is checked. `flush_l2` evicts device caches before every launch (comparisons).

        A run starts by forgetting a Stop left over from an earlier one, except with `keep_stop`:
        a run made of several calls (a bench's rounds, a comparison's sides) passes it after its
        first call, so a Stop pressed between two calls still ends the whole run. Workloads a Stop
        kept from running are returned `stopped`, so the caller sees it even when none ran."""
        names = workloads or list(self._project.workloads)
        if not names:
            raise QdError(f"project {self._project.path} has no @qd.workload to run")
        if not keep_stop:
            self._stop.clear()
        results = []
        for name in names:
            if self._stop.is_set():
                kernel = self._project.workload(name).kernel.name
                results.append(WorkloadResult(name, kernel, self.backend, stopped=True))
                continue
            results.append(self._runs.run(name, repeat, seed, warmup, flush_l2))
        return results

    # ---- counters
    def counters(self, task: str, preset: str = "quick", side: str = "current", ptx: str | None = None,
                 fresh: bool = False, seed: int = 0, timeout: float = 180.0, repeats: int = 1) -> CountersResult:
        """Profile `task` under ncu: one launch, in a child process, with the inputs its kernel's first
        workload builds (as a benchmark does). `side`: 'current' (what runs now, an override included),
        'generated' (the task's override hidden) or 'override'; `ptx` profiles that text in the task's
        place. Cached: an unchanged task is not profiled again unless `fresh`. Without counters the
        result says why, and carries what needs none (registers, occupancy, a model roofline).
        `repeats`: that many profiles of the same launch (each cached), in `result.repeats`, so an A/B
        can tell a change from noise (`counters.diff`)."""
        if repeats < 1:
            raise QdError(f"repeats must be 1 or more, not {repeats}")
        kernel = self._session.kernel_of(task) or next(
            (kt.kernel for kt in self._compile.lower() if any(t.name == task for t in kt.tasks)), None)
        if kernel is None:
            known = ", ".join(t.name for kt in self._compile.lower() for t in kt.tasks) or "none"
            raise QdError(f"no task named {task} in {self._project.path} (tasks: {known})")
        wls = self._project.workloads_for(kernel)
        if not wls:
            raise QdError(f"no @qd.workload runs kernel {kernel}: counters need its inputs; add a workload")
        if side == "override" and self.override(task) is None:
            raise QdError(f"{task} has no PTX override to profile")
        with self.variant(hide_overrides=task if side == "generated" else False):
            kts, compiled = self.compile([kernel], target="nvptx")
        tasks = kts[0].tasks
        mine = next((ct for ct in compiled if ct.task == task), None)
        bad = next((ct for ct in compiled if not ct.ok), None)
        if mine is None or bad is not None or kts[0].error:
            why = kts[0].error or (f"{bad.task}: {bad.error}" if bad else f"{task} did not compile")
            raise QdError(f"cannot profile {task}: {why}")
        items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled
                 if ct.spec is not None]
        text = mine.ptx if ptx is None else ptx
        if ptx is not None:
            items = [dataclasses.replace(it, code=ptx.encode(), tag=f"{task}:given") if it.spec.task == task else it
                     for it in items]
        wl = wls[0]
        args = check_call_args(wl.kernel.name, self._compile.specs[wl.kernel.name], wl.make_args(seed), tasks)
        trips = trip_counts(tasks, args)
        job = RunJob(wl.name, kernel, tuple(ct.task for ct in compiled), trips)
        profiler = None
        if self._device.cluster:   # made on the device's own node by the same child; the report comes back as bytes
            from .remote.counters_remote import RemoteProfiler  # deliberate lazy load: Ray only with a cluster
            info = self._device.info()
            profiler = RemoteProfiler(info.get("node"), info.get("gpu"), self._ncu, info.get("host", ""))
        res = collect(items, job, args, task, preset, text, self._counters_cache, setting=self._ncu,
                      profiler=profiler, timeout=timeout, fresh=fresh, seed=seed, variant=side)
        if res.ok and repeats > 1:
            assert res.record is not None
            res.repeats = [res.record]
            for i in range(1, repeats):
                more = collect(items, job, args, task, preset, text, self._counters_cache, setting=self._ncu,
                               profiler=profiler, timeout=timeout, fresh=fresh, seed=seed, variant=side, repeat=i)
                if not more.ok or more.record is None:
                    res = more
                    break
                res.repeats.append(more.record)
                res.seconds += more.seconds
        if not res.ok:
            median = self._session.median(task)
            task_ir = next((t for t in tasks if t.name == task), None)
            res.fallback = no_counters(estimate_resources(mine), task_ir, trips.get(task, 1),
                                       (median or 0.0) / 1e3, self._arch)
        self._emit(CountersMeasured(task, side, res))
        return res

    def close_device(self) -> None:
        self._device.close()

    def close(self) -> None:
        self.close_device()
        self._compiler.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

