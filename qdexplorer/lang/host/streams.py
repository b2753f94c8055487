"""`qd.create_stream()`, `qd.create_event()`, `qd.stream_parallel()`, `kernel(..., qd_stream=s)`.

Quadrants lets kernels run on several CUDA streams at once. qdexplorer runs every call in program
order on one stream, which is one of the orders a multi-stream program must already be correct
under (work on different streams may run in any interleaving, including this one). So streams and
events are real objects whose synchronisation waits for all work so far, and `stream_parallel`
blocks run their loops one after the other: the results are Quadrants', the overlap is not.
As in Quadrants, a stream or event made on the CPU backend has handle 0 (the CPU has none), and
`destroy()` (or leaving its `with` block) sets a handle to 0."""
from __future__ import annotations

import itertools
from contextlib import contextmanager

from ..calls import runtime_api

_handles = itertools.count(1)


def _new_handle() -> int:
    return 0 if runtime_api.current_arch() == "cpu" else next(_handles)


class _Handled:
    """What a stream and an event share: a handle that `destroy()` (or leaving a `with` block) sets
    to 0, and a synchronisation that waits for all work so far (there is one stream)."""

    def __init__(self, handle: int = 0, prog_ref=None):
        self._handle = handle

    @property
    def handle(self) -> int:
        return self._handle

    def synchronize(self):
        runtime_api.sync()

    def destroy(self):
        self._handle = 0

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.destroy()


class Stream(_Handled):
    """A stream: work given to it runs in program order with all other work."""


class Event(_Handled):
    """An event: recording it marks "all work so far", which is what waiting on it then waits for."""

    def record(self, qd_stream: Stream | None = None):
        pass  # every later wait sees all work recorded before it: one stream runs everything in order

    def wait(self, qd_stream: Stream | None = None):
        pass


def create_stream() -> Stream:
    return Stream(_new_handle())


def create_event() -> Event:
    return Event(_new_handle())


@contextmanager
def stream_parallel():
    """In a kernel, its top-level loops run one after the other (see the module docstring); from
    Python, nothing."""
    yield
