"""The open project as a Qt-free model: its kernels and tasks, their artifacts, runs and timings.

The engine emits events; `Session.apply` folds each one into this model and then announces
what changed through psygnal signals. The window's views take the session and subscribe (as
napari's layer controls take a layer), reading the data here rather than keeping copies; the
CLI reads the same model. A run keeps every launch of every task, so a median always has a
run scope and a second run never blurs into the first.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from psygnal import Signal

from .events import (CompileFinished, KernelLowered, LaunchesTimed, ProjectFailed, ProjectOpened, RunFinished,
                     RunStarted, TaskCompiled, TaskLoaded, TasksUnloaded, WorkerFaulted)


@dataclass
class KernelEntry:
    name: str
    tasks: tuple = ()          # lang.ir.Task
    error: str = ""


@dataclass
class RunRecord:
    """One workload run: every launch time per task, in order, as it streams in."""
    id: int
    workload: str
    kernel: str
    backend: str
    repeat: int
    tasks: tuple = ()
    started: float = field(default_factory=time.time)
    status: str = "running"    # running | passed | failed | error | skipped | stopped
    times: dict = field(default_factory=dict)    # task -> [ms, ...]
    result: object = None      # runtime.device.WorkloadResult once finished

    @property
    def launches(self) -> int:
        return sum(len(v) for v in self.times.values())

    def median(self, task: str) -> float | None:
        v = self.times.get(task)
        return statistics.median(v) if v else None


class Session:
    project_changed = Signal(object)      # ProjectOpened | ProjectFailed
    kernels_changed = Signal()            # the kernel → task structure changed
    task_changed = Signal(str)            # a task's artifacts, resources or figures changed
    compile_finished = Signal(object)     # CompileFinished
    run_started = Signal(object)          # RunRecord
    launches_added = Signal(object, int)  # RunRecord, how many new launches
    run_finished = Signal(object)         # RunRecord
    fault = Signal(object)                # WorkerFaulted
    message = Signal(str)                 # a line for the Messages panel

    def __init__(self):
        self.project: ProjectOpened | None = None
        self.project_error: str = ""
        self.kernels: dict[str, KernelEntry] = {}
        self.compiled: dict[tuple[str, str], object] = {}   # (target, task) -> CompiledTask
        self.resources: dict[str, dict] = {}                 # task -> registers, occupancy... (last load)
        self.runs: list[RunRecord] = []
        self.last_compile: CompileFinished | None = None
        self._runs_by_id: dict[int, RunRecord] = {}

    # ---- queries
    def task(self, name: str):
        for k in self.kernels.values():
            for t in k.tasks:
                if t.name == name:
                    return t
        return None

    def kernel_of(self, task: str) -> str | None:
        t = self.task(task)
        return t.kernel if t is not None else None

    def compiled_task(self, task: str, target: str = "nvptx"):
        return self.compiled.get((target, task))

    def task_names(self) -> list[str]:
        return [t.name for k in self.kernels.values() for t in k.tasks]

    def last_run_of(self, task: str) -> RunRecord | None:
        for r in reversed(self.runs):
            if r.times.get(task):
                return r
        return None

    def median(self, task: str) -> float | None:
        """Median launch time of `task` in the latest run that launched it (the run scope)."""
        r = self.last_run_of(task)
        return r.median(task) if r else None

    # ---- the one way in
    def apply(self, ev):
        if isinstance(ev, ProjectOpened):
            self.project, self.project_error = ev, ""
            self.project_changed.emit(ev)
        elif isinstance(ev, ProjectFailed):
            self.project_error = ev.message
            self.project_changed.emit(ev)
            self.message.emit(ev.message)
        elif isinstance(ev, KernelLowered):
            old = self.kernels.get(ev.kernel)
            self.kernels[ev.kernel] = KernelEntry(ev.kernel, ev.tasks, ev.error)
            if old is None or [t.name for t in old.tasks] != [t.name for t in ev.tasks] or old.error != ev.error:
                self.kernels_changed.emit()
            if ev.error:
                self.message.emit(ev.error)
        elif isinstance(ev, TaskCompiled):
            self.compiled[(ev.target, ev.task)] = ev.compiled
            self.task_changed.emit(ev.task)
        elif isinstance(ev, CompileFinished):
            self.last_compile = ev
            self.compile_finished.emit(ev)
        elif isinstance(ev, TaskLoaded):
            if ev.error:
                self.message.emit(f"load failed: {ev.task}: {ev.error}")
            else:
                self.resources[ev.task] = dict(ev.resources)
                self.task_changed.emit(ev.task)
        elif isinstance(ev, TasksUnloaded):
            for t in ev.tasks:
                self.resources.pop(t, None)
        elif isinstance(ev, RunStarted):
            rec = RunRecord(ev.run_id, ev.workload, ev.kernel, ev.backend, ev.repeat, ev.tasks)
            self.runs.append(rec)
            self._runs_by_id[rec.id] = rec
            self.run_started.emit(rec)
        elif isinstance(ev, LaunchesTimed):
            rec = self._runs_by_id.get(ev.run_id)
            if rec is not None:
                for tm in ev.timings:
                    rec.times.setdefault(tm.task, []).append(tm.ms)
                self.launches_added.emit(rec, len(ev.timings))
        elif isinstance(ev, RunFinished):
            rec = self._runs_by_id.get(ev.run_id)
            if rec is not None:
                rec.status, rec.result = ev.status, ev.result
                self.run_finished.emit(rec)
                for t in rec.times:
                    self.task_changed.emit(t)
        elif isinstance(ev, WorkerFaulted):
            self.message.emit(f"FAULT in {ev.task} ({ev.backend}): {ev.message}")
            self.fault.emit(ev)

    def forget_kernels_not_in(self, names: set[str]):
        """After a reload: kernels that vanished from the project leave the model."""
        gone = [k for k in self.kernels if k not in names]
        for k in gone:
            del self.kernels[k]
        if gone:
            self.kernels_changed.emit()
