"""What the engine reports: one event type per thing that happened, each carrying what a view needs.

Events are immutable records. The session model applies them (and views read the model); the
CLI prints them; tests assert on them. They sit at the bottom of the layers, so the payloads
they carry from higher layers (a CompiledTask, a LaunchTiming, a Fault) are typed loosely here.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Event:
    def to_dict(self) -> dict:
        d = {k: v for k, v in vars(self).items() if isinstance(v, (str, int, float, bool, dict, list, tuple, type(None)))}
        d["event"] = type(self).__name__
        return d


@dataclass(frozen=True)
class ProjectOpened(Event):
    path: str
    name: str
    kernels: tuple = ()
    workloads: tuple = ()
    files: tuple = ()


@dataclass(frozen=True)
class ProjectFailed(Event):
    """The project (or one of its files) could not be read; `message` names file:line."""
    path: str
    message: str


@dataclass(frozen=True)
class KernelLowered(Event):
    kernel: str
    tasks: tuple = ()          # lang.ir.Task, in launch order
    seconds: float = 0.0
    error: str = ""


@dataclass(frozen=True)
class TaskCompiled(Event):
    """One task's trip through every stage; `compiled` is the immutable CompiledTask."""
    task: str
    kernel: str
    target: str
    tier: str                  # cache tier of the final stage: memory | disk | miss | error
    key: str
    seconds: dict = field(default_factory=dict)
    size: int = 0
    override: str | None = None
    error: str = ""
    compiled: object = None


@dataclass(frozen=True)
class CompileFinished(Event):
    target: str
    tasks: int
    tiers: dict = field(default_factory=dict)
    errors: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class TaskLoaded(Event):
    task: str
    backend: str
    ms: float
    resources: dict = field(default_factory=dict)
    error: str = ""


@dataclass(frozen=True)
class TasksUnloaded(Event):
    """Modules of tasks that no longer exist (a kernel was edited or removed) were unloaded."""
    tasks: tuple = ()


@dataclass(frozen=True)
class RunStarted(Event):
    run_id: int
    workload: str
    kernel: str
    backend: str
    repeat: int
    tasks: tuple = ()


@dataclass(frozen=True)
class LaunchesTimed(Event):
    """A batch of launches that completed while a run streams (LaunchTiming records)."""
    run_id: int
    workload: str
    timings: tuple = ()


@dataclass(frozen=True)
class RunFinished(Event):
    run_id: int
    workload: str
    status: str                # passed | failed | error | skipped | stopped
    result: object = None      # runtime.device.WorkloadResult


@dataclass(frozen=True)
class WorkerFaulted(Event):
    """A task broke the device worker (illegal address, hang, crash); a fresh one replaced it."""
    task: str
    backend: str
    fault: object = None       # runtime.faults.Fault

    @property
    def message(self) -> str:
        return str(self.fault)
