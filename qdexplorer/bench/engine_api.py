"""What bench needs of an engine: a Protocol, so bench (below the engine in the layers) names the
methods it calls and nothing else, and a test double or a remote engine can stand in."""
from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from ..compiler.artifacts import CompiledTask
from ..events import Event, WorkloadResult
from ..project.loader import Project


class BenchEngine(Protocol):
    @property
    def project(self) -> Project: ...

    @property
    def backend(self) -> str: ...

    @property
    def arch(self) -> str: ...

    @property
    def mode(self) -> str: ...

    @property
    def cluster(self) -> str | None: ...

    def device_info(self) -> dict[str, Any]: ...

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]: ...

    def run(self, workloads: list[str] | None = None, repeat: int = 1, seed: int = 0, warmup: int = 0,
            flush_l2: bool = False, keep_stop: bool = False) -> list[WorkloadResult]: ...

    def variant(self, *, hide_overrides: bool | str = False,
                mode: str | None = None) -> AbstractContextManager[None]: ...

    def compiled_for(self, task: str, target: str | None = None) -> CompiledTask | None: ...
