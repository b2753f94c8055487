"""Interop with other libraries' CUDA streams (PyTorch, CuPy): the optional capability a script's
fast path asks for (`backend_api.stream_interop`).

Our stream is non-blocking, so a kernel that reads a GPU array must first wait for the array's
producer stream, and an asynchronous call must make the producer wait for our kernels before
its next op reads what they wrote. Both are event waits on the device; the host never blocks.
"""
from __future__ import annotations

from typing import Any

from cuda.bindings import driver as cu

from ...ir.device_array import NO_STREAM
from .context import CudaContext
from .driver import check

_LEGACY_STREAM = 1  # CU_STREAM_LEGACY: the implicit default stream PyTorch and CuPy use by default


class CudaStreams:
    def __init__(self, ctx: CudaContext):
        self.ctx = ctx
        self._order_event: Any = None     # orders our stream after a GPU array's producer
        self._handoff_event: Any = None   # orders the arrays' producers after an async call
        self._foreign: dict[int, Any] = {}  # stream handle -> CUstream: GPU arrays' streams scripts launch on
        self.foreign_pending = False      # a script launched on one of them since the last qd.sync()

    def after(self, handle: int) -> None:
        """Order our stream after the producer stream `handle` without blocking the host. Without
        this wait a kernel could read a tensor before the op that fills it ran."""
        if self._order_event is None:
            self._order_event = check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        check("cuEventRecord", cu.cuEventRecord(self._order_event, cu.CUstream(handle)))
        check("cuStreamWaitEvent", cu.cuStreamWaitEvent(self.ctx.stream, self._order_event, 0))

    def order_after(self, arrays: list) -> set:
        """Our stream after each GPU array's producer stream (one wait per stream); the streams,
        for `signal` once the launches are queued."""
        streams: set = set()
        for v in arrays:
            handle = stream_handle(v.stream)
            if handle is not None and handle not in streams:
                streams.add(handle)
                self.after(handle)
        return streams

    def signal(self, streams: set) -> None:
        """The producer streams wait (on the device) for what we just queued, so the next PyTorch
        or CuPy op on those arrays reads what the kernels wrote. qd.ndarrays and fields need
        nothing: every copy to or from them runs on our stream, after the kernels."""
        if not streams:
            return
        if self._handoff_event is None:
            self._handoff_event = check("cuEventCreate", cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
        check("cuEventRecord", cu.cuEventRecord(self._handoff_event, self.ctx.stream))
        for handle in streams:
            check("cuStreamWaitEvent", cu.cuStreamWaitEvent(cu.CUstream(handle), self._handoff_event, 0))

    def producer_stream(self, arrays: Any) -> Any:
        """The one stream every GPU array names, to launch on it directly (as Triton launches on
        PyTorch's current stream): the kernels are then ordered after the arrays' producers and
        before their next consumers with no event between streams, which costs a few microseconds
        of host and device time per call. None when the arrays name no stream or several: then
        our stream, ordered by events (`order_after`, `signal`)."""
        handle = None
        for v in arrays:
            h = stream_handle(v.stream)
            if h is None or (handle is not None and h != handle):
                return None
            handle = h
        if handle is None:
            return None
        st = self._foreign.get(handle)
        if st is None:
            if len(self._foreign) > 64:
                self._foreign.clear()
            st = self._foreign[handle] = cu.CUstream(handle)
        self.foreign_pending = True
        return st

    def wait_foreign(self) -> None:
        """After `qd.sync()` waited for our stream: kernels queued on GPU arrays' own streams,
        which their owner may have destroyed since, are waited for with the whole context."""
        if self.foreign_pending:
            check("cuCtxSynchronize", cu.cuCtxSynchronize(), "a kernel queued before qd.sync()")
            self.foreign_pending = False


def stream_handle(stream: Any) -> int | None:
    """The producer stream a GPU array names: `__cuda_array_interface__` v3 gives one (None: no
    ordering needed); an older interface (PyTorch's v2) gives none, so the legacy default stream,
    where PyTorch and CuPy queue work unless told otherwise."""
    if stream is None:
        return None
    return _LEGACY_STREAM if stream is NO_STREAM else int(stream)
