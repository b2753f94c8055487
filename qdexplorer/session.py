"""The open project as a Qt-free model: its kernels and tasks, their artifacts, runs and timings.

The one store of results. The engine emits events; `Session.apply` folds each one into this
model and then announces what changed through psygnal signals. The engine keeps its own results
in a Session it feeds first (so `Engine.compiled_for` and the CLI read the same model the window
shows), and the window keeps a mirror on the GUI thread fed by the same events, so the two cannot
drift. Views take the session and subscribe (as napari's layer controls take a layer), reading
the data here rather than keeping copies. A run keeps every launch of every task, once, so a
median always has a run scope and a second run never blurs into the first.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from psygnal import Signal

from .compiler.artifacts import CompiledTask
from .counters.collect import CountersResult
from .events import (CompileFinished, CountersMeasured, Event, KernelLowered, LaunchesTimed, ProjectFailed, ProjectOpened,
                     ResourcesEstimated, RunFinished, RunStarted, TaskCompiled, TaskLoaded, TasksForgotten,
                     WorkerFaulted, WorkloadResult)
from .ir.nodes import Task
from .runtime.launch import LaunchTiming


@dataclass(frozen=True)
class Selection:
    """What the window has selected, for the views that follow it: the task row (`task`), or a kernel
    row (`task` None) with the task shown for it (`shown`: its first), or why nothing can be shown
    (`error`: a title and a message, for a kernel that failed to lower or a file that did not load)."""
    task: str | None = None
    kernel: str | None = None
    shown: str | None = None
    error: tuple[str, str] | None = None


@dataclass
class KernelEntry:
    name: str
    tasks: tuple[Task, ...] = ()
    error: str = ""


@dataclass
class RunRecord:
    """One workload run: every launch, in order, as it streams in (the one copy of its timings)."""
    id: int
    workload: str
    kernel: str
    backend: str
    repeat: int
    tasks: tuple[str, ...] = ()
    started: float = field(default_factory=time.time)
    status: str = "running"    # running | passed | failed | error | skipped | stopped
    timings: list[LaunchTiming] = field(default_factory=list)
    result: WorkloadResult | None = None
    _by_task: dict[str, list[float]] = field(default_factory=dict, repr=False)

    def add(self, batch: tuple[LaunchTiming, ...]) -> None:
        self.timings.extend(batch)
        for tm in batch:
            self._by_task.setdefault(tm.task, []).append(tm.ms)

    @property
    def times(self) -> dict[str, list[float]]:
        """task -> launch times in ms: an index over `timings` (read-only)."""
        return self._by_task

    @property
    def launches(self) -> int:
        return len(self.timings)

    def median(self, task: str) -> float | None:
        v = self._by_task.get(task)
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
    counters_changed = Signal(str, str)   # task, side: a profile (or why there is none) arrived
    selected = Signal(object)             # Selection: the window's selection, which its views follow

    def __init__(self) -> None:
        self.project: ProjectOpened | None = None
        self.project_error: str = ""
        self.kernels: dict[str, KernelEntry] = {}
        self.compiled: dict[tuple[str, str], CompiledTask] = {}   # (target, task) -> latest
        self.resources: dict[str, dict[str, Any]] = {}           # task -> registers, occupancy... (latest)
        self.runs: list[RunRecord] = []
        self.counters: dict[tuple[str, str], CountersResult] = {}   # (task, side) -> its latest profile
        self.last_compile: CompileFinished | None = None
        self._runs_by_id: dict[int, RunRecord] = {}
        self.aside: set[int] = set()   # runs kept for the plots but not the "latest run" figures (a sweep's)
        self.groups: dict[int, tuple[int, ...]] = {}   # run id -> the runs measured as one (a bench's rounds)
        self._group_medians: dict[tuple[int, ...], dict[str, float]] = {}
        self.selection = Selection()

    def select(self, selection: Selection) -> None:
        """The row the window's tree has selected: its views show what it stands for (they subscribe to
        `selected`; the tree publishes, no one pushes a task into each view)."""
        self.selection = selection
        self.selected.emit(selection)

    def group(self, runs: list[RunRecord], medians: dict[str, float] | None = None) -> None:
        """Runs that were one measurement (a bench: one engine run a round and workload): the "latest run"
        figures are theirs together, or `medians` (task -> ms: the saved run's, without its untimed warm-up
        passes). After Bench & save the tree's Launch column showed the median of the bench's last round alone."""
        ids = tuple(r.id for r in runs)
        for i in ids:
            self.groups[i] = ids
        self._group_medians[ids] = dict(medians or {})
        for task in {t for r in runs for t in r.times}:
            self.task_changed.emit(task)

    def set_aside(self, runs: list[RunRecord]) -> None:
        """A sweep's runs time other settings (block sizes, fast math) than the project's: the tree's
        Launch column showed a variant's timings without saying which. They stay in the plots; the
        medians come from the runs before them."""
        self.aside |= {r.id for r in runs}
        for task in {t for r in runs for t in r.times}:
            self.task_changed.emit(task)

    # ---- queries
    def task(self, name: str) -> Task | None:
        for k in self.kernels.values():
            for t in k.tasks:
                if t.name == name:
                    return t
        return None

    def kernel_of(self, task: str) -> str | None:
        t = self.task(task)
        return t.kernel if t is not None else None

    def compiled_task(self, task: str, target: str = "nvptx") -> CompiledTask | None:
        return self.compiled.get((target, task))

    def task_names(self) -> list[str]:
        return [t.name for k in self.kernels.values() for t in k.tasks]

    def run(self, run_id: int) -> RunRecord | None:
        return self._runs_by_id.get(run_id)

    def last_run_of(self, task: str) -> RunRecord | None:
        for r in reversed(self.runs):
            if r.times.get(task) and r.id not in self.aside:
                return r
        return None

    def median(self, task: str) -> float | None:
        """Median launch time of `task` in the latest run that launched it (the run scope), every round of it
        where it was measured in rounds (`group`)."""
        r = self.last_run_of(task)
        if r is None:
            return None
        ids = self.groups.get(r.id, ())
        if not ids:
            return r.median(task)
        known = self._group_medians.get(ids, {})
        if task in known:
            return known[task]
        return statistics.median(ms for x in self.runs if x.id in set(ids) for ms in x.times.get(task, ()))

    # ---- the one way in
    def apply(self, ev: Event) -> None:
        if isinstance(ev, ProjectOpened):
            self.project, self.project_error = ev, ""
            self._forget_kernels_not_in(set(ev.kernels))
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
        elif isinstance(ev, TasksForgotten):
            for t in ev.tasks:
                self.compiled.pop((ev.target, t), None)
                self.resources.pop(t, None)
        elif isinstance(ev, TaskLoaded):
            if ev.error:
                self.message.emit(f"load failed: {ev.task}: {ev.error}")
            elif ev.resources:   # the CPU reports none: a ptxas estimate stays
                self.resources[ev.task] = {"source": "driver", **ev.resources}
                self.task_changed.emit(ev.task)
        elif isinstance(ev, ResourcesEstimated):
            if self.resources.get(ev.task, {}).get("source") != "driver":   # the driver's figures win
                self.resources[ev.task] = dict(ev.resources)
                self.task_changed.emit(ev.task)
        elif isinstance(ev, RunStarted):
            rec = RunRecord(ev.run_id, ev.workload, ev.kernel, ev.backend, ev.repeat, ev.tasks)
            self.runs.append(rec)
            self._runs_by_id[rec.id] = rec
            self.run_started.emit(rec)
        elif isinstance(ev, LaunchesTimed):
            found = self._runs_by_id.get(ev.run_id)
            if found is not None:
                found.add(ev.timings)
                self.launches_added.emit(found, len(ev.timings))
        elif isinstance(ev, RunFinished):
            done = self._runs_by_id.get(ev.run_id)
            if done is not None:
                done.status, done.result = ev.status, ev.result
                self.run_finished.emit(done)
                for t in done.times:
                    self.task_changed.emit(t)
        elif isinstance(ev, CountersMeasured):
            self.counters[(ev.task, ev.side)] = ev.result
            self.counters_changed.emit(ev.task, ev.side)
        elif isinstance(ev, WorkerFaulted):
            self.message.emit(f"FAULT in {ev.task} ({ev.backend}): {ev.message}")
            self.fault.emit(ev)

    def _forget_kernels_not_in(self, names: set[str]) -> None:
        """A reload: kernels that vanished from the project leave the model, with their results."""
        gone = [k for k in self.kernels if k not in names]
        if not gone:
            return
        tasks = {t.name for k in gone for t in self.kernels[k].tasks}
        for k in gone:
            del self.kernels[k]
        for key in [key for key in self.compiled if key[1] in tasks]:
            del self.compiled[key]
        for t in tasks:
            self.resources.pop(t, None)
        self.kernels_changed.emit()
