"""Events the engine emits; the GUI, the CLI's JSON and tests all consume the same records."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Event:
    def to_dict(self) -> dict:
        d = asdict(self)
        d["event"] = type(self).__name__
        return d


@dataclass
class CompileEvent(Event):
    """One task's trip through lower → codegen → PTX (or host object), with the cache tier."""
    task: str
    kernel: str
    target: str
    tier: str                 # 'memory' | 'disk' | 'miss' | 'error'
    key: str
    seconds: dict = field(default_factory=dict)  # lower, codegen, ptx (compile), cache
    size: int = 0
    override: str | None = None   # None, 'active', 'stale'
    error: str = ""


@dataclass
class LoadEvent(Event):
    task: str
    backend: str
    ms: float
    resources: dict = field(default_factory=dict)
    error: str = ""


@dataclass
class LaunchEvent(Event):
    task: str
    kernel: str
    backend: str
    ms: float
    grid: int
    block: int
    repeat: int
    workload: str = ""


@dataclass
class FaultEvent(Event):
    """A task broke the device worker (illegal address, hang); the worker was restarted."""
    task: str
    backend: str
    message: str


@dataclass
class Progress(Event):
    what: str
    done: int
    total: int
