"""SM clocks from NVML, read before and after a run: a GPU that throttled mid-run lies.

NVML ships with the driver (`libnvidia-ml.so.1`, `nvml.dll`) and needs no CUDA context, so the
app process may read it (it never touches CUDA itself). Where there is no NVML (no GPU, CPU
runs) the reading is None and nothing is warned.
"""
from __future__ import annotations

import ctypes
import sys

NVML_CLOCK_SM = 1
DRIFT = 0.10   # warn when the SM clock moved by more than this fraction during a run
_lib: list = []


def _nvml():
    if _lib:
        return _lib[0]
    lib = None
    for name in (("nvml.dll",) if sys.platform == "win32" else ("libnvidia-ml.so.1", "libnvidia-ml.so")):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is not None and lib.nvmlInit_v2() != 0:
        lib = None
    _lib.append(lib)
    return lib


def sm_clock_mhz(device: int = 0) -> int | None:
    """The device's current SM clock in MHz, or None where NVML is unavailable.

    NVML numbers devices in PCI order, CUDA by default fastest first; they agree on one-GPU
    machines and wherever CUDA_DEVICE_ORDER=PCI_BUS_ID.
    """
    lib = _nvml()
    if lib is None:
        return None
    handle = ctypes.c_void_p()
    if lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(device), ctypes.byref(handle)) != 0:
        return None
    mhz = ctypes.c_uint()
    if lib.nvmlDeviceGetClockInfo(handle, ctypes.c_int(NVML_CLOCK_SM), ctypes.byref(mhz)) != 0:
        return None
    return int(mhz.value)


def clock_warning(before: int | None, after: int | None) -> str:
    """A warning when the SM clock moved by more than 10% between the start and end of a run."""
    if not before or not after:
        return ""
    moved = abs(after - before) / before
    if moved <= DRIFT:
        return ""
    return (f"SM clock moved {moved:.0%} during the run ({before} → {after} MHz): timings may not be "
            f"comparable; lock clocks (nvidia-smi -lgc) or rerun")
