"""Assembly mode `culink`: a kernel's relocatable task cubins device-linked into one CUmodule.

Each task's PTX was assembled offline by `ptxas -c` (compiler stage `cubin`, cached per SM), so
the driver does no PTX JIT here and its compute cache plays no part: `cuLinkCreate`, one
`cuLinkAddData(CU_JIT_INPUT_CUBIN)` per task, `cuLinkComplete`, then `cuModuleLoadData` of the
linked image. The image belongs to the link state, so it is copied out before the state goes.
"""
from __future__ import annotations

import ctypes

from cuda.bindings import driver as cu

from .driver import CudaError, check

LOG_SIZE = 1 << 16


def _text(buf) -> str:
    return bytes(buf).split(b"\0")[0].decode(errors="replace").strip()


def link_cubins(parts: list[tuple[str, bytes]]) -> tuple[object, str, int]:
    """Link `(name, relocatable cubin)` parts into one module: (CUmodule, info log, linked bytes)."""
    info, err_log = bytearray(LOG_SIZE), bytearray(LOG_SIZE)
    O = cu.CUjit_option
    opts = [O.CU_JIT_INFO_LOG_BUFFER, O.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, O.CU_JIT_ERROR_LOG_BUFFER,
            O.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, O.CU_JIT_LOG_VERBOSE]
    vals = [info, LOG_SIZE, err_log, LOG_SIZE, 1]  # kept alive until cuLinkDestroy: the driver writes the logs
    state = check("cuLinkCreate", cu.cuLinkCreate(len(opts), opts, vals))
    try:
        for name, cubin in parts:
            err, = cu.cuLinkAddData(state, cu.CUjitInputType.CU_JIT_INPUT_CUBIN, cubin, len(cubin),
                                    name.encode(), 0, None, None)
            if err != cu.CUresult.CUDA_SUCCESS:
                raise CudaError(f"cuLinkAddData({name})", err, _text(err_log) or _text(info))
        err, image, size = cu.cuLinkComplete(state)
        if err != cu.CUresult.CUDA_SUCCESS:
            raise CudaError("cuLinkComplete", err, _text(err_log) or _text(info))
        linked = ctypes.string_at(int(image), int(size))
        err, mod = cu.cuModuleLoadData(linked)
        if err != cu.CUresult.CUDA_SUCCESS:
            raise CudaError("cuModuleLoadData (linked cubin)", err, _text(err_log) or _text(info))
        return mod, _text(info), len(linked)
    finally:
        cu.cuLinkDestroy(state)
