"""GPU detection that never crashes: no driver, no GPU or a broken install all just mean
'cuda unavailable, here is why', and the CPU backend is used.

The probe runs in a short child process, so the app process never initialises CUDA (a broken
driver can hang or abort `cuInit`; the device worker is the only process that owns a context).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
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


def cuda_status(refresh: bool = False, in_process: bool = False) -> CudaStatus:
    """`in_process=True` is for a process that will own a CUDA context anyway (a script after
    `qd.init(arch=qd.cuda)`): the probe then costs a `cuInit` here instead of a child interpreter
    (about a second of a script's start)."""
    if _status and not refresh:
        return _status[0]
    st = probe_here() if in_process else _probe_in_child()
    _status[:] = [st]
    return st


_CHILD = ("import json, dataclasses; from qdexplorer.runtime.cuda.detect import probe_here; "
          "print(json.dumps(dataclasses.asdict(probe_here())))")


def _probe_in_child(timeout: float = 30.0) -> CudaStatus:
    if os.environ.get("QDEXPLORER_DISABLE_CUDA"):
        return CudaStatus(False, "disabled by QDEXPLORER_DISABLE_CUDA")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        p = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, errors="replace", timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return CudaStatus(False, f"the CUDA probe did not answer within {timeout:g} s (a hung driver?)")
    except OSError as e:
        return CudaStatus(False, f"could not start the CUDA probe: {e}")
    try:
        return CudaStatus(**json.loads(p.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError, TypeError):
        err = (p.stderr.strip().splitlines() or [f"exit code {p.returncode}"])[-1]
        return CudaStatus(False, f"the CUDA probe failed: {err}")


def probe_here() -> CudaStatus:
    """Initialise CUDA in this process and describe device 0 (the probe child runs this)."""
    if os.environ.get("QDEXPLORER_DISABLE_CUDA"):
        return CudaStatus(False, "disabled by QDEXPLORER_DISABLE_CUDA")
    try:  # here, not at the top: the app never imports the bindings itself (a probe child does)
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
