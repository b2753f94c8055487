"""Event calls of the timed-launch hot path, through ctypes into the libcuda cuda-python loaded.

A timed launch is three driver calls (event, launch, event) plus one elapsed-time read. Measured
on an H200, cuda-python's argument marshalling makes each small call cost about a microsecond;
ctypes with fixed argtypes is cheaper for these two-argument calls (and dearer for the eleven-
argument cuLaunchKernel, which therefore stays on cuda-python). Handles come from cuda-python
objects (`int(handle)`). `QDEXPLORER_CUDA_FASTCALL=0` turns this off; the benchmark compares both.
"""
from __future__ import annotations

import ctypes
import os

_vp = ctypes.c_void_p


class FastCalls:
    def __init__(self, lib):
        self.record = lib.cuEventRecord
        self.record.argtypes = [_vp, _vp]
        self.record.restype = ctypes.c_int
        self._elapsed = lib.cuEventElapsedTime
        self._elapsed.argtypes = [ctypes.POINTER(ctypes.c_float), _vp, _vp]
        self._elapsed.restype = ctypes.c_int
        self._out = ctypes.c_float()
        self._ref = ctypes.byref(self._out)

    def elapsed_ms(self, start: int, end: int) -> float:
        rc = self._elapsed(self._ref, start, end)
        if rc:
            raise RuntimeError(f"cuEventElapsedTime failed with CUresult {rc}")
        return self._out.value


def load() -> FastCalls | None:
    if os.environ.get("QDEXPLORER_CUDA_FASTCALL", "1") in ("0", "false", "off"):
        return None
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            return FastCalls(ctypes.CDLL(name))
        except (OSError, AttributeError):
            continue
    return None
