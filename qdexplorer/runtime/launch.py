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
