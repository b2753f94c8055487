"""The device copy of a `qd.ndarray` or field while a script's kernels run on CUDA.

Quadrants keeps an ndarray on the device for its whole life; copying it in and out around every
kernel call would make a time-step loop transfer-bound. The language keeps the NumPy storage and
this mirror side by side and tracks which one is current (`lang.field.Storage`), so a loop of
kernel calls moves no data and Python reads copy back only what a kernel changed.
"""
from __future__ import annotations

import weakref

import numpy as np


class DeviceMirror:
    def __init__(self, backend, host: np.ndarray):
        self.backend, self.memory, self.nbytes = backend, backend.memory, host.nbytes
        self.ptr = self.memory.alloc_buffer(host.nbytes)
        self._free = weakref.finalize(self, self.memory.free_buffer, self.ptr)  # freed with its array

    def upload(self, host: np.ndarray):
        self.memory.copy_in(self.ptr, host)

    def download(self, host: np.ndarray):
        self.memory.copy_out(host, self.ptr)

    def read(self, host: np.ndarray, offset: int):
        """`host.nbytes` bytes from byte `offset` of the device copy (one element read by Python)."""
        self.memory.copy_out(host, self.ptr + offset)

    def fill(self, value, dtype: np.dtype) -> bool:
        """Fill on the device when the element is 1, 2 or 4 bytes, or 8 bytes whose halves repeat
        (0, most often); False otherwise, and the caller fills on the host."""
        raw = np.array(value, dtype=dtype).tobytes()
        if len(raw) == 8 and raw[:4] == raw[4:]:
            raw = raw[:4]
        if len(raw) not in (1, 2, 4):
            return False
        pattern = int.from_bytes(raw, "little")
        self.memory.memset(self.ptr, pattern, len(raw), self.nbytes // len(raw))
        return True

    def free(self):
        self._free()
