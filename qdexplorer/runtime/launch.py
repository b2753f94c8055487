"""What a launch measured: one record per timed launch, whichever backend ran it.

What a launch needs (`LaunchSpec`) is made by the compiler and lives below both, in
`qdexplorer.machine.launch_spec`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(slots=True)
class LaunchTiming:
    """One timed launch of one task; the same record whichever backend ran it."""
    task: str
    kernel: str
    backend: str
    ms: float
    grid: int
    block: int
    repeat: int = 0
    workload: str = ""
    cpu_ms: float | None = None     # CPU backend: process CPU time of the launch (immune to a busy machine)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_new = object.__new__


def fresh_timing(task: str, kernel: str, backend: str, grid: int, block: int) -> LaunchTiming:
    """A LaunchTiming of a launch not yet measured, made in half the time of the generated __init__
    (the timed CUDA launch makes one per launch; launch_overhead.py compares its host cost with a
    bare loop's). Every field is set; tests/runtime/test_launch_timing.py checks the list."""
    t = _new(LaunchTiming)
    t.task, t.kernel, t.backend, t.ms, t.grid, t.block = task, kernel, backend, 0.0, grid, block
    t.repeat, t.workload, t.cpu_ms = 0, "", None
    return t
