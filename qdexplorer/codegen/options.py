"""What a task module is built for: the target and the code-shaping switches."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CodegenOptions:
    target: str = "nvptx"  # 'nvptx' | 'host'
    libdevice: str | None = None  # path; None → afn fallbacks on nvptx
    fast_math: bool = False  # CUDA: approximate f32 math, div.approx and ftz (fast_math.py)
    vector: int = 4  # indices per thread per grid-stride step on nvptx (1 = plain grid-stride loop)
    debug: bool = False  # bounds-check every ndarray access (debug_checks.py)
