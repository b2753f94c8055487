"""GPU detection that never crashes: no driver, no GPU or a broken install all just mean
'cuda unavailable, here is why', and the CPU backend is used."""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class CudaStatus:
    available: bool
    reason: str = ""
    name: str = ""
    arch: str = ""            # e.g. sm_90
    sm_count: int = 0
    driver_version: int = 0
    memory_gb: float = 0.0


_status: list = []


def cuda_status(refresh: bool = False) -> CudaStatus:
    if _status and not refresh:
        return _status[0]
    st = _probe()
    _status[:] = [st]
    return st


def _probe() -> CudaStatus:
    if os.environ.get("QDEXPLORER_DISABLE_CUDA"):
        return CudaStatus(False, "disabled by QDEXPLORER_DISABLE_CUDA")
    try:
        from cuda.bindings import driver as cu
    except Exception as e:  # noqa: BLE001 - cuda-python missing or broken
        return CudaStatus(False, f"cuda-python is not importable: {e}")
    try:
        err, = cu.cuInit(0)
        if err != cu.CUresult.CUDA_SUCCESS:
            return CudaStatus(False, f"cuInit failed: {err.name}")
        err, n = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS or n == 0:
            return CudaStatus(False, "no CUDA device found")
        err, dev = cu.cuDeviceGet(0)
        attr = cu.CUdevice_attribute
        major = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)[1]
        minor = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)[1]
        sms = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)[1]
        name = cu.cuDeviceGetName(256, dev)[1].split(b"\0")[0].decode()
        drv = cu.cuDriverGetVersion()[1]
        mem = cu.cuDeviceTotalMem(dev)[1]
        return CudaStatus(True, "", name, f"sm_{major}{minor}", sms, drv, mem / 2**30)
    except Exception as e:  # noqa: BLE001 - DynamicLibNotFoundError when there is no driver
        return CudaStatus(False, f"no NVIDIA driver ({type(e).__name__}: {e})")
