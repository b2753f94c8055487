"""Which backend class a backend name means."""
from __future__ import annotations

from typing import Any

from .backend_api import Backend
from .cpu import CpuBackend


def make_backend(name: str, **opts: Any) -> Backend:
    if name == "cpu":
        return CpuBackend(threads=opts.get("threads"))
    if name == "cuda":
        # deliberate lazy load: it loads cuda.bindings, which a CPU-only install may lack
        from .cuda.backend import CudaBackend
        return CudaBackend(device=opts.get("device", 0))
    raise ValueError(f"unknown backend {name!r} (cpu or cuda)")
