"""Device memory: a run's buffers (reused across runs of the same shapes), the buffers that outlive
a call (the device copies of qd.ndarrays and fields), the L2 scrub, and a count of the bytes
copied each way, so that tests can see what stays resident.

Every copy runs on the context's stream, so it is ordered after the kernels queued there.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from cuda.bindings import driver as cu

from .context import CudaContext
from .driver import check


class CudaMemory:
    def __init__(self, ctx: CudaContext):
        self.ctx = ctx
        self._alloc: dict[Any, Any] = {}  # key -> CUdeviceptr, reused across runs
        self._buffers: set[int] = set()  # device copies of qd.ndarrays / fields (alloc_buffer)
        self.scrub: tuple[Any, int] | None = None  # (CUdeviceptr, bytes): written before a timed launch to evict L2
        self.transfers = {"htod": 0, "dtoh": 0}

    def run_buffer(self, key: Any, nbytes: int) -> Any:
        """The device buffer kept under `key` (an argument's name and size, a debug record),
        allocated at first use and reused by later runs."""
        ptr = self._alloc.get(key)
        if ptr is None:
            ptr = self._alloc[key] = check("cuMemAlloc", cu.cuMemAlloc(max(1, nbytes)))
        return ptr

    def send(self, ptr: Any, host: np.ndarray) -> None:
        """Queue the copy of `host` to `ptr`; the caller waits before `host` may change."""
        check("cuMemcpyHtoDAsync", cu.cuMemcpyHtoDAsync(ptr, host.ctypes.data, host.nbytes, self.ctx.stream))
        self.transfers["htod"] += host.nbytes

    def receive(self, host: np.ndarray, ptr: Any) -> None:
        """Queue the copy of `ptr` into `host`; the caller waits before reading it."""
        check("cuMemcpyDtoHAsync", cu.cuMemcpyDtoHAsync(host.ctypes.data, ptr, host.nbytes, self.ctx.stream))
        self.transfers["dtoh"] += host.nbytes

    # ---- buffers that outlive one call: the device copies of qd.ndarrays and fields (scripts)
    def alloc_buffer(self, nbytes: int) -> int:
        ptr = check("cuMemAlloc", cu.cuMemAlloc(max(1, nbytes)))
        self._buffers.add(int(ptr))
        return int(ptr)

    def free_buffer(self, ptr: int) -> None:
        if ptr in self._buffers:  # after close() the context is gone and so is the buffer
            self._buffers.discard(ptr)
            cu.cuMemFree(cu.CUdeviceptr(ptr))

    def copy_in(self, ptr: int, host: np.ndarray) -> None:
        if host.nbytes:
            self.send(ptr, host)
            self.ctx.wait()

    def copy_out(self, host: np.ndarray, ptr: int) -> None:
        if host.nbytes:
            self.receive(host, ptr)
            self.ctx.wait()

    def memset(self, ptr: int, pattern: int, itemsize: int, count: int) -> None:
        """Fill `count` elements of 1, 2 or 4 bytes with `pattern` on the device (no transfer)."""
        fn = {1: cu.cuMemsetD8Async, 2: cu.cuMemsetD16Async, 4: cu.cuMemsetD32Async}[itemsize]
        check("cuMemset", fn(ptr, pattern, count, self.ctx.stream))
        self.ctx.wait()

    def scrub_l2(self) -> None:
        """Evict L2 before the next launch, as Nsight Compute does by default: write a buffer twice
        its size on the launch stream. It runs before the launch's start event, so it is not timed."""
        if self.scrub is None:
            size = max(1 << 20, 2 * self.ctx.l2_bytes)
            self.scrub = (check("cuMemAlloc", cu.cuMemAlloc(size)), size)
        ptr, n = self.scrub
        check("cuMemsetD32Async", cu.cuMemsetD32Async(ptr, 0, n // 4, self.ctx.stream))

    def free_all(self) -> None:
        for ptr in self._alloc.values():
            cu.cuMemFree(ptr)
        self._alloc.clear()
        for ptr in list(self._buffers):
            self.free_buffer(ptr)
        if self.scrub is not None:
            cu.cuMemFree(self.scrub[0])
            self.scrub = None
