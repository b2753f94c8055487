"""Which backend runs, and which code target and SM arch it needs: one choice, made in one place."""
from __future__ import annotations

from ..ir.errors import QdError
from ..machine.arch import DEFAULT_ARCH
from .cuda.detect import cuda_status

TARGET = {"cpu": "host", "cuda": "nvptx"}


def pick_arch(flag: str | None, project_arch: str | None = None) -> str:
    """sm_XX by flag, then project setting, then the detected GPU, then sm_90."""
    if flag:
        return flag
    if project_arch:
        return project_arch
    st = cuda_status()
    return st.arch if st.available else DEFAULT_ARCH


def check_backend(backend: str, here: bool = True) -> None:
    """`here=False`: the backend runs on another machine (a cluster's GPU), so this machine's CUDA
    does not matter; the remote device reports its own."""
    if backend not in TARGET:
        raise QdError(f"unknown backend {backend!r}: choose cpu or cuda")
    if here and backend == "cuda" and not cuda_status().available:
        raise QdError(f"the cuda backend is unavailable here: {cuda_status().reason}; use the cpu backend "
                      f"(PTX is still generated)")
