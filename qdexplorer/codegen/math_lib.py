"""Where each `qd.math` function comes from, per target.

NVPTX cannot select `llvm.sin/exp/log/pow` (LLVM aborts), so accurate math on CUDA calls
libdevice's `__nv_*`; without libdevice a few functions fall back to `afn` approximations
(sin.approx, ex2.approx, lg2.approx) and the compile log says so. The host calls libm.
"""
from __future__ import annotations

import os
import glob
import sys

# qd name -> (libdevice f32, libdevice f64, libm f32, libm f64)
LIB = {
    "sin": ("__nv_sinf", "__nv_sin", "sinf", "sin"),
    "cos": ("__nv_cosf", "__nv_cos", "cosf", "cos"),
    "tan": ("__nv_tanf", "__nv_tan", "tanf", "tan"),
    "asin": ("__nv_asinf", "__nv_asin", "asinf", "asin"),
    "acos": ("__nv_acosf", "__nv_acos", "acosf", "acos"),
    "atan": ("__nv_atanf", "__nv_atan", "atanf", "atan"),
    "atan2": ("__nv_atan2f", "__nv_atan2", "atan2f", "atan2"),
    "exp": ("__nv_expf", "__nv_exp", "expf", "exp"),
    "log": ("__nv_logf", "__nv_log", "logf", "log"),
    "tanh": ("__nv_tanhf", "__nv_tanh", "tanhf", "tanh"),
    "pow": ("__nv_powf", "__nv_pow", "powf", "pow"),
}
# functions that are plain LLVM intrinsics on every target
INTRINSIC = {"sqrt": "llvm.sqrt", "floor": "llvm.floor", "ceil": "llvm.ceil", "abs": "llvm.fabs",
             "round": "llvm.round"}
# functions the afn fallback can build on NVPTX (f32 only)
APPROX_F32 = {"sin", "cos", "tan", "exp", "log", "pow", "tanh"}


def find_libdevice() -> str | None:
    """Locate libdevice.10.bc: $QDEXPLORER_LIBDEVICE, CUDA toolkits, then the nvidia-nvvm wheel."""
    env = os.environ.get("QDEXPLORER_LIBDEVICE")
    if env:
        return env if os.path.isfile(env) else None
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    cands = []
    for r in filter(None, roots):
        cands.append(os.path.join(r, "nvvm", "libdevice", "libdevice.10.bc"))
    cands += sorted(glob.glob("/usr/local/cuda-*/nvvm/libdevice/libdevice.10.bc"), reverse=True)
    for sp in sys.path:
        if sp and os.path.isdir(os.path.join(sp, "nvidia")):
            cands += glob.glob(os.path.join(sp, "nvidia", "*", "nvvm", "libdevice", "libdevice.10.bc"))
            cands += glob.glob(os.path.join(sp, "nvidia", "nvvm", "libdevice", "libdevice.10.bc"))
            cands += glob.glob(os.path.join(sp, "nvidia", "*", "libdevice", "libdevice.10.bc"))
    for c in cands:
        if os.path.isfile(c):
            return c
    return None


_cached: dict = {}


def libdevice_path() -> str | None:
    if "p" not in _cached or os.environ.get("QDEXPLORER_LIBDEVICE") != _cached.get("env"):
        _cached["p"] = find_libdevice()
        _cached["env"] = os.environ.get("QDEXPLORER_LIBDEVICE")
    return _cached["p"]
