"""One workload's run: compile its kernel, load the tasks on the device, build the inputs once
(here: the device never imports the project), check them against the specialisation the tasks
were compiled for, and stream the launches back as events.

Apart from the Engine because a run is its own sequence of failure points (a task that did not
compile, a load, the user's input code, memory, a worker that died), each ending in a
`WorkloadResult` that says which; the Engine only loops over workloads and honours Stop.
"""
from __future__ import annotations

import copy
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..compiler.artifacts import CompiledTask
from ..events import (Event, LaunchesTimed, RunFinished, RunStarted, TaskLoaded, WorkerFaulted, WorkloadResult)
from ..ir.errors import QdError
from ..ir.nodes import Task
from ..lang.calls.arg_check import check_call_args
from ..lang.calls.bounds import trip_counts
from ..lang.kernel import Workload
from ..project.loader import Project
from ..runtime.device_api import LoadItem, LoadResult, RunJob
from ..runtime.faults import WorkerFault
from ..runtime.launch import LaunchTiming
from .compile_step import CompileStep
from .device_place import DevicePlace

_run_ids = itertools.count(1)


class _RunSink:
    """Where one run's launches go: an event per batch, and the workload's check at the checkpoint."""

    def __init__(self, emit: Callable[[Event], None], run_id: int, wl: Workload, before: dict[str, Any],
                 args: dict[str, Any], res: WorkloadResult):
        self.emit, self.run_id, self.wl, self.before, self.args, self.res = emit, run_id, wl, before, args, res

    def timings(self, batch: list[LaunchTiming]) -> None:
        self.res.launches += len(batch)
        self.emit(LaunchesTimed(self.run_id, self.wl.name, tuple(batch)))

    def checkpoint(self) -> None:
        try:
            self.res.check_error = self.wl.run_check(self.before, self.args)
        except Exception as e:  # noqa: BLE001 - a broken check is the user's bug; show where
            self.res.check_error = f"check raised {type(e).__name__}: {e}"


def _out_of_memory(workload: str, args: dict, what: str) -> str:
    size = sum(v.nbytes for v in args.values() if isinstance(v, np.ndarray))
    return (f"workload '{workload}': its inputs ({size / (1 << 20):.0f} MiB) and {what} do not fit in memory; "
            f"make the inputs smaller")


class WorkloadRun:
    """Runs one workload at a time on the place's device; `stop` is the Engine's Stop, shared."""

    def __init__(self, project: Callable[[], Project], place: DevicePlace, step: CompileStep,
                 compile: Callable[[list[str]], Any], stop: threading.Event, emit: Callable[[Event], None]):
        self.project, self.place, self.step, self.compile = project, place, step, compile
        self.stop, self.emit = stop, emit

    def run(self, name: str, repeat: int, seed: int, warmup: int, flush_l2: bool) -> WorkloadResult:
        backend = self.place.backend
        wl = self.project().workload(name)
        kernel = wl.kernel.name
        res = WorkloadResult(name, kernel, backend)
        kts, compiled = self.compile([kernel])
        tasks = kts[0].tasks
        run_id = next(_run_ids)
        self.emit(RunStarted(run_id, name, kernel, backend, repeat, tuple(t.name for t in tasks)))
        cuda_only = [t.name for t in tasks if t.uses_block_features]
        bad = [ct for ct in compiled if not ct.ok]
        if kts[0].error:
            res.error = kts[0].error
        elif backend == "cpu" and cuda_only:
            res.skipped = f"{cuda_only[0]} uses qd.simt.block features (CUDA only)"
        elif bad:
            res.error, res.fault_task = f"{bad[0].task}: {bad[0].error}", bad[0].task
        else:
            self._launch(wl, compiled, tasks, res, run_id, repeat, seed, warmup, flush_l2)
        self.emit(RunFinished(run_id, name, res.status, res))
        return res

    def _launch(self, wl: Workload, compiled: list[CompiledTask], tasks: list[Task], res: WorkloadResult,
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
            args = check_call_args(wl.kernel.name, self.step.specs[wl.kernel.name], args, tasks)
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
            out = self.place.device().run(job, args, _RunSink(self.emit, run_id, wl, before, args, res), self.stop)
        except WorkerFault as f:
            self._fault(res, f)
            return
        except MemoryError:
            res.error = _out_of_memory(wl.name, args, "the device's copy of them")
            return
        res.error, res.fault_task, res.stopped = out.error, out.fault_task, out.stopped
        res.ok = res.check_error is None and not res.error
        res.seconds = time.perf_counter() - t0

    def _load(self, compiled: list[CompiledTask]) -> list[LoadResult]:
        items = [LoadItem(ct.spec, ct.output, ct.load_hash, ct.unit, ct.final_kind) for ct in compiled
                 if ct.ok and ct.spec is not None]
        results = self.place.device().load(items) if items else []
        for r in results:
            self.emit(TaskLoaded(r.task, self.place.backend, r.ms, r.resources, r.error))
        return results

    def _fault(self, res: WorkloadResult, f: WorkerFault) -> None:
        res.error, res.fault_task, res.fault = str(f), f.task, f.fault
        self.emit(WorkerFaulted(f.task, self.place.backend, f.fault))
