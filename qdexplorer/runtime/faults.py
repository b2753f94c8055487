"""What can go wrong on a device, as types rather than message substrings.

A `Fault` means the device process had to be replaced (sticky CUDA error, hang, crash); the
engine reports it against the task and carries on with a fresh worker. `DeviceFault` is the
exception a backend raises when its context is poisoned and the process must die.
"""
from __future__ import annotations

import signal
from dataclasses import dataclass


class DeviceFault(Exception):
    """A sticky device error: the context is unusable and the process must be replaced."""

    def __init__(self, task: str, message: str):
        super().__init__(message)
        self.task = task


@dataclass(frozen=True)
class Fault:
    task: str
    kind: str                  # 'sticky' | 'timeout' | 'died'
    message: str
    restarted: bool = True     # the worker was replaced; loaded modules are reloaded on next use

    def __str__(self) -> str:
        return self.message


class WorkerFault(Exception):
    """Raised engine-side when the device worker had to be replaced; carries the typed Fault."""

    def __init__(self, fault: Fault):
        super().__init__(fault.message)
        self.fault = fault
        self.task = fault.task


def describe_exit(exitcode: int | None) -> str:
    """'killed by SIGSEGV' rather than 'exit code -11' (or 'exit code None')."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"
