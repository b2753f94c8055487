"""The contract every backend fulfils, CPU and CUDA alike, and the capabilities only some have.

A leaf: the backends import it, and `backends.make_backend` picks one. Following tinygrad's
small classes, a backend holds its `modules` (the tasks' code on the device) beside what runs
them. What the host does not need, it does not pretend to have: a backend whose launches are
queued on a device is also `Queued`, and one that can order itself with other libraries' GPU
streams offers `StreamInterop`; callers ask with `isinstance` (or `stream_interop`), never getattr.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TypeVar, runtime_checkable

from ..machine.launch_spec import LaunchSpec
from .launch import LaunchTiming


@dataclass
class Prepared:
    """One argument set made ready for launches: typed, so backends agree on what they receive.

    `host` holds the arrays the kernels work on (private copies, or the caller's own arrays for
    in-place script calls) and the scalars; `trips` the trip count of each task, computed where
    the arguments were built; `params` each task's launch arguments as the backend made them. A
    backend with more to keep returns a subclass of its own from `prepare` (CUDA's
    `cuda/launch_state.CudaPrepared`: device pointers, the hot launch records, the timing's state),
    and is handed it back by its other methods.
    """
    host: dict
    trips: dict[str, int]
    params: dict = field(default_factory=dict)
    reuse: bool = False  # a script call: one at a time, so per-task parameter buffers may be reused


P = TypeVar("P", bound=Prepared)   # a backend's own argument sets: what its `prepare` returns
P_in = TypeVar("P_in", bound=Prepared, contravariant=True)


class Modules(Protocol):
    """The tasks' code loaded on a backend, by task name."""

    def load(self, spec: LaunchSpec, code: bytes, tag: str = "", unit: str = "") -> None: ...
    def load_linked(self, unit: str, items: list[tuple[LaunchSpec, bytes, str]]) -> None: ...
    def unload(self, task: str) -> None: ...
    def loaded(self, task: str) -> bool: ...
    def resources(self, task: str) -> dict[str, Any]: ...


@runtime_checkable
class Backend(Protocol[P]):
    name: str

    @property
    def modules(self) -> Modules: ...

    def info(self) -> dict[str, Any]: ...
    def prepare(self, args: dict[str, Any], trips: dict[str, int], in_place: bool = False) -> P: ...
    def launch(self, task: str, prepared: P, timed: bool = True) -> LaunchTiming: ...
    def fetch(self, prepared: P, into: dict[str, Any]) -> None: ...
    # script fast path: one task's launcher for calls of one signature (None: take the checked path)
    # (values, trip count[, stream]): the CUDA one takes the stream to launch on (producer_stream)
    def quick_launcher(self, task: str, args: dict[str, Any]) -> Callable[..., None] | None: ...
    def close(self) -> None: ...


@runtime_checkable
class Queued(Protocol[P_in]):
    """A backend whose launches are queued on a device and complete later. Host launches have
    finished when they return, so the CPU backend is not one."""

    def finish(self, prepared: P_in) -> None: ...   # wait for its launches; fill their timings
    def handoff(self, prepared: P_in) -> None: ...  # order the arrays' producers after our launches, without waiting
    def sync(self) -> None: ...                          # wait for everything queued (qd.sync())
    def flush_caches(self) -> None: ...  # evict device caches before a timed launch (outside its timing)


@runtime_checkable
class StreamInterop(Protocol):
    """Ordering with the streams of other libraries' GPU arrays (PyTorch, CuPy)."""

    def producer_stream(self, arrays: Any) -> Any: ...  # the one stream all these GPU arrays name, or None
    def order_after(self, arrays: list) -> set: ...     # our stream after these GPU arrays' producers
    def signal(self, streams: set) -> None: ...         # those producers after the launches just queued


@runtime_checkable
class WithStreams(Protocol):
    @property
    def streams(self) -> StreamInterop: ...


def stream_interop(backend: Backend) -> StreamInterop | None:
    """The backend's stream interop, where it has one (the script fast path asks)."""
    return backend.streams if isinstance(backend, WithStreams) else None
