"""What crosses between a device client and the process that holds the device, as typed records.

Requests go to the device; replies come back. A run's reply is a stream: any number of
`TimingsMsg`, one `CheckpointMsg` once the shared arrays hold the first pass's outputs, then
`Ok` with its `RunOutcome`. A `HaltMsg` may arrive while a run streams; `ExitMsg` ends the
worker. `Faulted` means the device's context is poisoned and its process is about to exit.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .device_api import LoadItem, LoadResult, RunJob, RunOutcome
from .launch import LaunchTiming
from .shared_arrays import Layout


# ---- requests
@dataclass(frozen=True)
class LoadMsg:
    items: list[LoadItem]


@dataclass(frozen=True)
class UnloadMsg:
    tasks: list[str]


@dataclass(frozen=True)
class RunMsg:
    """A run over `arrays` and the scalars, which travel by value. The arrays are a `Layout` of a
    shared memory-mapped file where the device shares this machine's memory (the worker), the
    arrays themselves where it does not (a Ray actor: its object store carries them)."""
    job: RunJob
    arrays: Layout | dict[str, np.ndarray]
    scalars: dict[str, Any]


@dataclass(frozen=True)
class HaltMsg:
    """Stop the run in progress between launches (its first pass still completes)."""


@dataclass(frozen=True)
class ExitMsg:
    """Close the device and end the worker."""


Request = LoadMsg | UnloadMsg | RunMsg | HaltMsg | ExitMsg
Work = LoadMsg | UnloadMsg | RunMsg   # the requests a device serves; halt and exit steer the loop


# ---- replies
@dataclass(frozen=True)
class Ready:
    """The worker started and holds its device."""
    info: dict[str, Any]


@dataclass(frozen=True)
class Ok:
    value: list[LoadResult] | RunOutcome | None = None


@dataclass(frozen=True)
class Failed:
    """The request failed; the device is still usable (a worker that fails to start says so too)."""
    error: str


@dataclass(frozen=True)
class Faulted:
    """A sticky device error: the worker exits after sending this."""
    task: str
    message: str


@dataclass(frozen=True)
class TimingsMsg:
    batch: list[LaunchTiming]


@dataclass(frozen=True)
class CheckpointMsg:
    """The run's arrays hold the first timed pass's outputs: in the shared file, or here, for a
    run whose arrays travelled by value."""
    arrays: dict[str, np.ndarray] | None = None


Reply = Ready | Ok | Failed | Faulted | TimingsMsg | CheckpointMsg
Answer = Ok | Failed | Faulted            # how a served request ends
Progress = TimingsMsg | CheckpointMsg     # what a run sends while it goes on
