"""Thin helpers over `cuda.bindings.driver`: error checking that names the call, sticky errors."""
from __future__ import annotations

from cuda.bindings import driver as cu

from ..faults import DeviceFault

# Errors after which the context is unusable: the process must be replaced.
STICKY = {
    "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_HARDWARE_STACK_ERROR", "CUDA_ERROR_ASSERT", "CUDA_ERROR_LAUNCH_TIMEOUT",
    "CUDA_ERROR_ECC_UNCORRECTABLE", "CUDA_ERROR_CONTEXT_IS_DESTROYED", "CUDA_ERROR_TOO_MANY_BLOCKS",
}
SUCCESS = cu.CUresult.CUDA_SUCCESS


class CudaError(RuntimeError):
    def __init__(self, call: str, err, detail: str = ""):
        self.call, self.code = call, err
        name = getattr(err, "name", str(err))
        super().__init__(f"{call} failed: {name}" + (f"\n{detail}" if detail else ""))


def check(call: str, result, task: str = ""):
    """Unpack a cuda-python result tuple; raise CudaError (or DeviceFault if sticky)."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != SUCCESS:
        name = getattr(err, "name", str(err))
        if name in STICKY:
            raise DeviceFault(task, f"{call}: {name}")
        raise CudaError(call, err)
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)
