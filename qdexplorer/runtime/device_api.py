"""What the engine may ask of a device, wherever the device lives.

`LocalDevice` (this process) and `DeviceClient` (a device in a worker process or a Ray actor)
take the same records and honour the same `Device` protocol, so the engine never asks which one
it holds. Everything here is a plain picklable record: it crosses a pipe, or a network, as is.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..machine.launch_spec import LaunchSpec
from .launch import LaunchTiming


@dataclass(frozen=True)
class LoadItem:
    spec: LaunchSpec
    code: bytes            # PTX (nvptx) or object file (host)
    tag: str = ""          # identity of what is loaded (hash), to skip reloading the same code
    unit: str = ""         # load unit (task, or whole-module name)
    kind: str = ""         # 'ptx' | 'obj' | 'cubin' (relocatable: a unit's cubins are linked together)


@dataclass(frozen=True)
class LoadResult:
    task: str
    ok: bool
    ms: float = 0.0
    error: str = ""
    resources: dict[str, Any] = field(default_factory=dict)
    reused: bool = False


@dataclass(frozen=True)
class RunJob:
    """One workload's launches: which tasks, in order, how often, with which trip counts."""
    workload: str
    kernel: str
    tasks: tuple[str, ...]
    trips: dict[str, int]
    repeat: int = 1
    warmup: int = 0
    flush_l2: bool = False     # evict device caches before every launch (comparisons: cold-cache timing)


@dataclass
class RunOutcome:
    launches: int = 0
    stopped: bool = False
    error: str = ""
    fault_task: str = ""
    seconds: float = 0.0


class RunSink(Protocol):
    """Where a run's results go while it streams; called on the thread that called `Device.run`."""

    def timings(self, batch: list[LaunchTiming]) -> None:
        """Launches completed since the last batch (at least every 50 ms while a run goes on)."""

    def checkpoint(self) -> None:
        """The run's args now hold the first timed pass's outputs: check them now. Once per run."""


@runtime_checkable
class Device(Protocol):
    """One backend, loaded with tasks, that runs jobs. A run's first timed pass always completes
    (it is checked); `stop` is honoured between the launches after it."""
    backend_name: str

    def info(self) -> dict[str, Any]: ...
    def load(self, items: list[LoadItem]) -> list[LoadResult]: ...
    def unload(self, tasks: list[str]) -> None: ...
    def loaded_tasks(self) -> list[str]: ...
    def run(self, job: RunJob, args: dict[str, Any], sink: RunSink, stop: threading.Event) -> RunOutcome: ...
    def close(self) -> None: ...
