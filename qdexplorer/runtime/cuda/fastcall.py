"""The launch hot path through ctypes into the same libcuda that cuda-python loaded.

cuda-python marshals every argument of every call in Python; for the three calls a timed launch
makes (event, launch, event) that costs several microseconds. Handles still come from cuda-python
objects (`int(handle)`); only these two entry points are called directly.
`QDEXPLORER_CUDA_FASTCALL=0` turns this off (the benchmark compares both).
"""
from __future__ import annotations

import ctypes
import os

_vp, _u = ctypes.c_void_p, ctypes.c_uint


class FastCalls:
    def __init__(self, lib):
        self.launch = lib.cuLaunchKernel
        self.launch.argtypes = [_vp, _u, _u, _u, _u, _u, _u, _u, _vp, _vp, _vp]
        self.launch.restype = ctypes.c_int
        self.record = lib.cuEventRecord
        self.record.argtypes = [_vp, _vp]
        self.record.restype = ctypes.c_int


def load() -> FastCalls | None:
    if os.environ.get("QDEXPLORER_CUDA_FASTCALL", "1") in ("0", "false", "off"):
        return None
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            return FastCalls(ctypes.CDLL(name))
        except (OSError, AttributeError):
            continue
    return None
