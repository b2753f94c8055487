"""`qd.init(arch=...)` and calling kernels from plain Python scripts.

Scripts share the engine with the app and the CLI; they just run it in-process (compile and
launch without helper processes), the way Quadrants scripts do.
"""
from __future__ import annotations

import warnings

cpu, cuda, gpu = "cpu", "cuda", "gpu"
_state: dict = {"arch": None, "runner": None}


def init(arch: str = cpu, **options):
    """Pick the backend for kernel calls from Python; `gpu` falls back to the CPU when no GPU exists."""
    if arch not in (cpu, cuda, gpu):
        raise ValueError(f"qd.init(arch=...) takes qd.cpu, qd.cuda or qd.gpu, got {arch!r}")
    if arch in (cuda, gpu):
        from ..runtime.cuda.detect import cuda_status
        st = cuda_status()
        if not st.available:
            if arch == cuda:
                raise RuntimeError(f"qd.init(arch=qd.cuda): CUDA is unavailable: {st.reason}")
            warnings.warn(f"qd.gpu: no usable GPU ({st.reason}); falling back to the CPU backend",
                          stacklevel=2)
            arch = cpu
        else:
            arch = cuda
    reset()
    _state["arch"], _state["options"] = arch, options
    return arch


def reset():
    r = _state.get("runner")
    if r is not None:
        r.close()
    _state["runner"] = None


def current_arch() -> str:
    return _state["arch"] or cpu


def call_kernel(kernel, args: dict):
    from ..engine import InlineRunner
    if _state.get("runner") is None:
        _state["runner"] = InlineRunner(current_arch(), **_state.get("options", {}) or {})
    return _state["runner"].call(kernel, args)
