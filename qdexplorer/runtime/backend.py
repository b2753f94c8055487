"""The contract every backend fulfils, CPU and CUDA alike, so callers never probe with getattr.

A leaf: the backends import it, and `backends.make_backend` picks one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, runtime_checkable

from ..machine.launch_spec import LaunchSpec
from .launch import LaunchTiming


@dataclass
class Prepared:
    """One argument set made ready for launches: typed, so backends agree on what they receive.

    `host` holds the arrays the kernels work on (private copies, or the caller's own arrays for
    in-place script calls) and the scalars; `trips` the trip count of each task, computed where
    the arguments were built; the rest is the backend's own (device pointers, param blocks).
    """
    host: dict
    trips: dict[str, int]
    device: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    pending: list = field(default_factory=list)
    hot: dict = field(default_factory=dict)
    reuse: bool = False  # a script call: one at a time, so per-task parameter buffers may be reused
    streams: set = field(default_factory=set)  # producer streams of the GPU arrays (CUDA handles)


@runtime_checkable
class Backend(Protocol):
    name: str

    def info(self) -> dict[str, Any]: ...
    def make_current(self) -> None: ...
    def load(self, spec: LaunchSpec, code: bytes, tag: str = "", unit: str = "") -> None: ...
    def load_linked(self, unit: str, items: list[tuple[LaunchSpec, bytes, str]]) -> None: ...
    def unload(self, task: str) -> None: ...
    def loaded(self, task: str) -> bool: ...
    def resources(self, task: str) -> dict[str, Any]: ...
    def prepare(self, args: dict[str, Any], trips: dict[str, int], in_place: bool = False) -> Prepared: ...
    def launch(self, task: str, prepared: Prepared, timed: bool = True) -> LaunchTiming: ...
    def flush_caches(self) -> None: ...   # evict device caches before a timed launch (outside its timing)
    def finish(self, prepared: Prepared) -> None: ...
    def fetch(self, prepared: Prepared, into: dict[str, Any]) -> None: ...
    def release(self, prepared: Prepared) -> None: ...
    def handoff(self, prepared: Prepared) -> None: ...  # order the arrays' producers after our launches, without waiting
    def sync(self) -> None: ...
    # script fast path: one task's launcher for calls of one signature (None: take the checked path)
    # (values, trip count[, stream]): the CUDA one takes the stream to launch on (producer_stream)
    def quick_launcher(self, task: str, args: dict[str, Any]) -> Callable[..., None] | None: ...
    def order_after(self, arrays: list) -> set: ...   # our stream after these GPU arrays' producers
    def signal(self, streams: set) -> None: ...       # those producers after the launches just queued
    def producer_stream(self, arrays: Any) -> Any: ...  # the one stream all these GPU arrays name, or None
    def close(self) -> None: ...

