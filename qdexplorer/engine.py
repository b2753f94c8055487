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
import copy
import dataclasses
import itertools
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .compiler import ptxas
from .compiler.sass import SassListing, disassemble as disassemble_sass
from .compiler.artifacts import CompiledTask
from .compiler.asm_print import write_ptx
from .compiler.cache import PtxCache
from .compiler.compile_index import CompileIndex
from .compiler.dump import env_load_kinds
from .compiler.overrides import Override, OverrideStore
from .compiler.pipeline import MODES, Pipeline
from .compiler.pool import CompilePool, InlineCompiler
from .compiler.resources import estimate_resources
from .counters.cache import CountersCache
from .counters.collect import CountersResult, collect
from .counters.model import no_counters
from .events import (CompileFinished, CountersMeasured, Event, KernelLowered, LaunchesTimed, ProjectFailed, ProjectOpened,
                     ResourcesEstimated, RunFinished, RunStarted, TaskCompiled, TaskLoaded, TasksForgotten,
                     WorkerFaulted, WorkloadResult)
from .lang.calls.arg_check import check_call_args
from .lang.calls.bounds import trip_counts
from .ir.errors import QdError
from .lang.tasks.fingerprint import TaskMemo
from .ir.nodes import Task
from .lang.kernel import Kernel, Workload
from .project.data_folder import override_store
from .project.loader import Project, load_project
from .runtime.device import LocalDevice
from .runtime.device_api import Device, LoadItem, LoadResult, RunJob
from .runtime.faults import WorkerFault
from .runtime.launch import LaunchTiming
from .runtime.targets import TARGET, check_backend, pick_arch
from .runtime.worker import worker_device
from .session import Session

_run_ids = itertools.count(1)

Listener = Callable[[Event], None]


@dataclass
class KernelTasks:
    kernel: str
    tasks: list[Task] = field(default_factory=list)
    lower_s: float = 0.0
    error: str = ""


class Compiled(NamedTuple):
    """What one compile produced: the kernels as lowered (with their errors) and each task's result."""
    kernels: list[KernelTasks]
    tasks: list[CompiledTask]


class _HiddenOverrides(OverrideStore):
    """The project's overrides with those of `task` (or all, for None) hidden from the pipeline."""

    def __init__(self, inner: OverrideStore, task: str | None):
        self.__dict__.update(inner.__dict__)
        self._hidden = task

    def get(self, task: str, kind: str = "ptx") -> Override | None:
        return None if self._hidden is None or task == self._hidden else super().get(task, kind)


class _RunSink:
    """Where one run's launches go: an event per batch, and the workload's check at the checkpoint."""

    def __init__(self, engine: Engine, run_id: int, wl: Workload, before: dict[str, Any], args: dict[str, Any],
                 res: WorkloadResult):
        self.engine, self.run_id, self.wl, self.before, self.args, self.res = engine, run_id, wl, before, args, res

    def timings(self, batch: list[LaunchTiming]) -> None:
        self.res.launches += len(batch)
        self.engine._emit(LaunchesTimed(self.run_id, self.wl.name, tuple(batch)))

    def checkpoint(self) -> None:
        try:
            self.res.check_error = self.wl.run_check(self.before, self.args)
        except Exception as e:  # noqa: BLE001 - a broken check is the user's bug; show where
            self.res.check_error = f"check raised {type(e).__name__}: {e}"


def _out_of_memory(workload: str, args: dict, what: str) -> str:
    size = sum(v.nbytes for v in args.values() if isinstance(v, np.ndarray))
    return (f"workload '{workload}': its inputs ({size / (1 << 20):.0f} MiB) and {what} do not fit in memory; "
            f"make the inputs smaller")


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
        self._backend = o.backend or cfg.backend or "cpu"
        check_backend(self._backend, here=o.cluster is None)   # a cluster's GPU needs none on this machine
        self._arch = pick_arch(o.arch, cfg.arch)
        self._in_process = o.in_process
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
        self._launch_timeout = o.launch_timeout
        self._cluster, self._node, self._gpu = o.cluster, o.node, o.gpu
        self._device: Device | None = None
        self._stop = threading.Event()
        self._specs: dict[str, tuple] = {}   # kernel -> the argument specialisation its tasks were lowered for
        self._ncu = o.ncu
        self._counters_cache = CountersCache(self._cache.folder / "counters",
                                             enabled=o.use_cache and bool(self._cache.offline))

    # ---- what is open
    @property
    def project(self) -> Project:
        return self._project

    @property
    def backend(self) -> str:
        return self._backend

    @property
    def target(self) -> str:
        """The code target the current backend runs: 'nvptx' (cuda) or 'host' (cpu)."""
        return TARGET[self._backend]

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
        p = self._pipeline
        return dataclasses.replace(self._options, backend=self._backend, arch=self._arch, mode=p.mode,
                                   fast_math=p.fast_math, block_dim=p.default_block, cluster=self._cluster,
                                   node=self._node, gpu=self._gpu)

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
        return self._cluster

    def device_info(self) -> dict[str, Any]:
        """What runs the tasks: the backend's description, and for a cluster the node and GPU."""
        return self._the_device().info()

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

    # ---- lowering and compiling
    def _lower(self, names: list[str] | None = None) -> list[KernelTasks]:
        out = []
        for name, k in self._project.kernels.items():
            if names and name not in names:
                continue
            kt = KernelTasks(name)
            t0 = time.perf_counter()
            try:
                spec = self._specs[name] = self._spec(k)
                kt.tasks = k.tasks(spec, memo=self._memo)
            except QdError as e:
                kt.error = str(e)
            kt.lower_s = time.perf_counter() - t0
            self._emit(KernelLowered(name, tuple(kt.tasks), kt.lower_s, kt.error))
            out.append(kt)
        if names:
            unknown = set(names) - {kt.kernel for kt in out}
            if unknown:
                raise QdError(f"no kernel named {', '.join(sorted(unknown))} in {self._project.path} "
                              f"(known: {', '.join(sorted(self._project.kernels))})")
        return out

    def _spec(self, kernel: Kernel) -> tuple:
        try:
            return kernel.spec_for()
        except QdError:
            wls = self._project.workloads_for(kernel.name)
            if not wls:
                raise
            args = wls[0].bound_args(0)
            return kernel.spec_for(tuple(args[n] for n in kernel.arg_names))

    def compile(self, kernels: list[str] | None = None, target: str | None = None) -> Compiled:
        """Lower `kernels` (default: all) and compile each task for `target` (default: the backend's)."""
        target = target or self.target
        t0 = time.perf_counter()
        kts = self._lower(kernels)
        lower = {t.name: kt.lower_s / max(1, len(kt.tasks)) for kt in kts for t in kt.tasks}
        # one batch across kernels, so a cold compile fills every pool worker
        compiled = self._pipeline.compile([t for kt in kts for t in kt.tasks], target, lower)
        # what `show` / `override list` read later without importing the project
        CompileIndex(self._cache, self._project.path).record(target, self._arch, kts, compiled,
                                                              complete=kernels is None)
        tiers: dict[str, int] = {}
        for ct in compiled:
            tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
        self._emit(CompileFinished(target, len(compiled), tiers, sum(1 for ct in compiled if ct.error)
                                   + sum(1 for kt in kts if kt.error), time.perf_counter() - t0))
        self._forget_vanished(kts, compiled, target, everything=kernels is None)
        if self._project.config.print_kernel_asm:
            self._print_asm(kts, compiled, target)
        return Compiled(kts, compiled)

    def _print_asm(self, kts: list[KernelTasks], compiled: list[CompiledTask], target: str) -> None:
        """The project's `print_kernel_asm`: each task's PTX beside the kernels (CPU runs compile it too,
        quietly: those nvptx results are for the files only, not events)."""
        folder = self._project.path if self._project.path.is_dir() else self._project.path.parent
        if target != "nvptx":
            quiet = copy.copy(self._pipeline)
            quiet.on_task = lambda ct: None
            compiled = quiet.compile([t for kt in kts for t in kt.tasks], "nvptx")
        try:
            write_ptx(folder, compiled)
        except OSError as e:
            warnings.warn(f"print_kernel_asm: cannot write PTX into {folder} ({e.strerror or e})", stacklevel=2)

    def _forget_vanished(self, kts: list[KernelTasks], compiled: list[CompiledTask], target: str,
                         everything: bool) -> None:
        """Tasks that no longer exist (a kernel edited or removed) leave the store and the device."""
        alive = {ct.task for ct in compiled}
        lowered = {kt.kernel for kt in kts}
        gone = tuple(task for (tg, task), ct in self._session.compiled.items()
                     if tg == target and task not in alive and (everything or ct.kernel in lowered))
        if gone:
            self._emit(TasksForgotten(target, gone))
        if self._device is not None and target == self.target:
            unload = [t for t in self._device.loaded_tasks() if t in gone or (everything and t not in alive)]
            if unload:
                self._device.unload(unload)

    def compiled_for(self, task: str, target: str | None = None) -> CompiledTask | None:
        """The latest result of `task` for `target` (default: the backend's), or None."""
        return self._session.compiled.get((target or self.target, task))

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

    # ---- what a task compiles to, beyond its PTX
    def optimised_ll(self, task: str) -> str:
        """The task's module after the -O3 pipeline the PTX stage runs (in a pool worker, never here)."""
        ct = self.compiled_for(task, "nvptx")
        if ct is None or "ll" not in ct.used:
            return f"; {task} is not compiled yet"
        return self._pipeline.optimised_ll(ct)

    def sass(self, task: str, arch: str | None = None, generated: bool = False) -> SassListing | str:
        """SASS of the PTX in use (override included; `generated`: of the compiler's own PTX) for `arch`
        (default: the task's), with each line's PTX and source line, via ptxas + nvdisasm (the
        `qdexplorer[sass]` wheels or a toolkit); a `// why not` text when there is none."""
        ct = self.compiled_for(task, "nvptx")
        if ct is None or not ct.ptx:
            return f"// {task} has no PTX yet"
        gen = ct.produced.get("ptx")
        ptx = (gen.text if gen is not None else "") if generated else ct.ptx
        if not ptx:
            return f"// {task} has no generated PTX"
        try:
            return disassemble_sass(ptx, arch or ct.arch)
        except ptxas.PtxasNotFound as e:
            return f"// SASS is not available on this machine: {e}."
        except ValueError as e:
            return f"// no SASS for {arch or ct.arch}: {e}"

    def resources(self, task: str) -> dict[str, Any]:
        """Registers, spills and occupancy of the task's PTX in use, from `ptxas -v` at its block size
        (no GPU needed); also reported as a ResourcesEstimated event. {} before it is compiled."""
        ct = self.compiled_for(task, "nvptx")
        if ct is None or not ct.ok:
            return {}
        res = estimate_resources(ct)
        self._emit(ResourcesEstimated(task, res))
        return res

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
    def _the_device(self) -> Device:
        if self._device is None:
            if self._cluster:
                # Ray is imported only when a cluster is asked for: local sessions never load it
                from .remote import cluster, ray_device
                cluster.connect(self._cluster)
                self._device = ray_device.actor_device(self._backend, timeout=self._launch_timeout, node_id=self._node,
                                                    gpu=self._gpu)
            elif self._in_process:
                self._device = LocalDevice(self._backend)
            else:
                self._device = worker_device(self._backend, timeout=self._launch_timeout)
        return self._device

    def set_backend(self, backend: str) -> None:
        """Switch backends; the next run starts the other device."""
        if backend != self._backend:
            check_backend(backend, here=self._cluster is None)
            self.close_device()
            self._backend = backend

    def set_mode(self, mode: str) -> None:
        """Switch assembly modes (per_task, whole, culink); modules are loaded afresh in the new layout."""
        if mode != self._pipeline.mode:
            if mode not in MODES:
                raise QdError(f"unknown assembly mode {mode!r} (per_task, whole or culink)")
            self.close_device()
            self._pipeline.mode = mode

    def _load(self, compiled: list[CompiledTask]) -> list[LoadResult]:
        items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled
                 if ct.ok and ct.spec is not None]
        results = self._the_device().load(items) if items else []
        for r in results:
            self._emit(TaskLoaded(r.task, self._backend, r.ms, r.resources, r.error))
        return results

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
                results.append(WorkloadResult(name, kernel, self._backend, stopped=True))
                continue
            results.append(self._run_one(name, repeat, seed, warmup, flush_l2))
        return results

    def _run_one(self, name: str, repeat: int, seed: int, warmup: int, flush_l2: bool) -> WorkloadResult:
        wl = self._project.workload(name)
        kernel = wl.kernel.name
        res = WorkloadResult(name, kernel, self._backend)
        kts, compiled = self.compile([kernel])
        tasks = kts[0].tasks
        run_id = next(_run_ids)
        self._emit(RunStarted(run_id, name, kernel, self._backend, repeat, tuple(t.name for t in tasks)))
        cuda_only = [t.name for t in tasks if t.uses_block_features]
        bad = [ct for ct in compiled if not ct.ok]
        if kts[0].error:
            res.error = kts[0].error
        elif self._backend == "cpu" and cuda_only:
            res.skipped = f"{cuda_only[0]} uses qd.simt.block features (CUDA only)"
        elif bad:
            res.error, res.fault_task = f"{bad[0].task}: {bad[0].error}", bad[0].task
        else:
            self._launch_workload(wl, compiled, tasks, res, run_id, repeat, seed, warmup, flush_l2)
        self._emit(RunFinished(run_id, name, res.status, res))
        return res

    def _launch_workload(self, wl: Workload, compiled: list[CompiledTask], tasks: list[Task], res: WorkloadResult,
                         run_id: int, repeat: int, seed: int, warmup: int, flush_l2: bool) -> None:
        t0 = time.perf_counter()
        try:
            loads = self._load(compiled)
        except WorkerFault as f:
            self._fault(res, f)
            return
        failed = [r for r in loads if not r.ok]
        if failed:
            res.error, res.fault_task = f"{failed[0].task}: load failed: {failed[0].error}", failed[0].task
            return
        try:
            args = wl.make_args(seed)   # built once, here: the device never imports the project
        except Exception as e:  # noqa: BLE001 - the user's workload code
            res.error = f"workload '{wl.name}' failed to build its inputs: {type(e).__name__}: {e}"
            return
        try:  # against the specialisation the tasks were compiled for: nothing misread, nothing overflows
            args = check_call_args(wl.kernel.name, self._specs[wl.kernel.name], args, tasks)
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
        job = RunJob(wl.name, wl.kernel.name, tuple(ct.task for ct in compiled), trips, repeat, warmup, flush_l2)
        try:
            out = self._the_device().run(job, args, _RunSink(self, run_id, wl, before, args, res), self._stop)
        except WorkerFault as f:
            self._fault(res, f)
            return
        except MemoryError:
            res.error = _out_of_memory(wl.name, args, "the device's copy of them")
            return
        res.error, res.fault_task, res.stopped = out.error, out.fault_task, out.stopped
        res.ok = res.check_error is None and not res.error
        res.seconds = time.perf_counter() - t0

    def _fault(self, res: WorkloadResult, f: WorkerFault) -> None:
        res.error, res.fault_task, res.fault = str(f), f.task, f.fault
        self._emit(WorkerFaulted(f.task, self._backend, f.fault))

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
            (kt.kernel for kt in self._lower() if any(t.name == task for t in kt.tasks)), None)
        if kernel is None:
            known = ", ".join(t.name for kt in self._lower() for t in kt.tasks) or "none"
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
        args = check_call_args(wl.kernel.name, self._specs[wl.kernel.name], wl.make_args(seed), tasks)
        trips = trip_counts(tasks, args)
        job = RunJob(wl.name, kernel, tuple(ct.task for ct in compiled), trips)
        profiler = None
        if self._cluster:   # made on the device's own node by the same child; the report comes back as bytes
            from .remote.counters_remote import RemoteProfiler
            info = self._the_device().info()
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
        if self._device is not None:
            self._device.close()
            self._device = None

    def close(self) -> None:
        self.close_device()
        self._compiler.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

