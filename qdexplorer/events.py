"""What the engine reports: one event type per thing that happened, each carrying what a view needs.

Events are immutable records with typed payloads. The session folds them into its model (the
engine's own session and the window's mirror alike), the CLI prints them, tests assert on them.
They sit just below bench in the layers, above the compiler and runtime whose records they carry.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .compiler.artifacts import CompiledTask
from .counters.collect import CountersResult
from .ir.nodes import Task
from .runtime.faults import Fault
from .runtime.launch import LaunchTiming


@dataclass(frozen=True)
class Event:
    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in vars(self).items() if isinstance(v, (str, int, float, bool, dict, list, tuple, type(None)))}
        d["event"] = type(self).__name__
        return d


@dataclass(frozen=True)
class ProjectOpened(Event):
    path: str
    name: str
    kernels: tuple[str, ...] = ()
    workloads: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProjectFailed(Event):
    """The project (or one of its files) could not be read; `message` names file:line."""
    path: str
    message: str


@dataclass(frozen=True)
class KernelLowered(Event):
    kernel: str
    tasks: tuple[Task, ...] = ()    # in launch order
    seconds: float = 0.0
    error: str = ""


@dataclass(frozen=True)
class TaskCompiled(Event):
    """One task's trip through every stage."""
    compiled: CompiledTask

    @property
    def task(self) -> str:
        return self.compiled.task

    @property
    def target(self) -> str:
        return self.compiled.target

    def to_dict(self) -> dict[str, Any]:
        ct = self.compiled
        return {"event": "TaskCompiled", "task": ct.task, "kernel": ct.kernel, "target": ct.target, "tier": ct.tier,
                "key": ct.key[:16], "seconds": dict(ct.seconds), "size": len(ct.output), "override": ct.override,
                "error": ct.error}


@dataclass(frozen=True)
class CompileFinished(Event):
    target: str
    tasks: int
    tiers: dict[str, int] = field(default_factory=dict)   # cache tier -> how many tasks
    errors: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class TasksForgotten(Event):
    """Tasks that no longer exist (a kernel was edited or removed): their results and loaded
    modules are gone, so no view keeps showing them."""
    target: str
    tasks: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskLoaded(Event):
    task: str
    backend: str
    ms: float
    resources: dict[str, Any] = field(default_factory=dict)
    error: str = ""


@dataclass(frozen=True)
class ResourcesEstimated(Event):
    """Registers, spills and occupancy from `ptxas -v` (no GPU needed); the driver's figures from a
    CUDA load (TaskLoaded) win over these."""
    task: str
    resources: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunStarted(Event):
    run_id: int
    workload: str
    kernel: str
    backend: str
    repeat: int
    tasks: tuple[str, ...] = ()


@dataclass(frozen=True)
class LaunchesTimed(Event):
    """A batch of launches that completed while a run streams."""
    run_id: int
    workload: str
    timings: tuple[LaunchTiming, ...] = ()


@dataclass
class WorkloadResult:
    """How one workload's run ended. Its launches are not here: they stream as LaunchesTimed and
    are kept once, in the session's RunRecord."""
    workload: str
    kernel: str
    backend: str
    ok: bool = False
    check_error: str | None = None
    error: str = ""
    fault_task: str = ""
    fault: Fault | None = None
    launches: int = 0
    seconds: float = 0.0
    skipped: str = ""      # why the workload did not run on this backend (e.g. CUDA-only tasks)
    stopped: bool = False  # Stop was pressed: the timings are what was measured until then

    @property
    def status(self) -> str:
        if self.skipped:
            return "skipped"
        if self.error:
            return "error"
        if self.stopped:
            return "stopped"
        return "passed" if self.ok else "failed"


@dataclass(frozen=True)
class RunFinished(Event):
    run_id: int
    workload: str
    status: str                # passed | failed | error | skipped | stopped
    result: WorkloadResult


@dataclass(frozen=True)
class WorkerFaulted(Event):
    """A task broke the device worker (illegal address, hang, crash); a fresh one replaced it."""
    task: str
    backend: str
    fault: Fault

    @property
    def message(self) -> str:
        return str(self.fault)


@dataclass(frozen=True)
class CountersMeasured(Event):
    """A task was profiled under ncu (or could not be: `result.state` and `result.message` say why,
    and `result.fallback` holds what needs no counters). `side`: 'current', 'generated', 'override'
    or the name of a PTX file."""
    task: str
    side: str
    result: CountersResult
