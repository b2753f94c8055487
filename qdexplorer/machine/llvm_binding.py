"""llvmlite's binding with every target initialised, once per process: the compiler's NVPTX and
host code generators and the CPU backend's JIT all need it."""
from __future__ import annotations

from typing import Any

_ready = False


def llvm_binding() -> Any:
    """The `llvmlite.binding` module, its targets and asm printers initialised."""
    global _ready
    # imported on first use: LLVM's shared library is large, and the device worker of a CUDA
    # backend or a process that only reads records never needs it
    from llvmlite import binding as llvm
    if not _ready:
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _ready = True
    return llvm
