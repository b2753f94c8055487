"""The NVIDIA target's defaults: what is compiled for when no flag, project setting or GPU says."""
from __future__ import annotations

DEFAULT_ARCH = "sm_90"     # the SM that PTX targets when neither a flag, the project nor a detected GPU names one
DEFAULT_PTX_ISA = "ptx85"  # the PTX ISA version LLVM's NVPTX backend emits
