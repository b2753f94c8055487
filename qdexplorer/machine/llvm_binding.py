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
        # shared-memory pointers 32 bits wide, as nvcc makes them: an i32 index into a shared array
        # then needs no sign extension, so loads at x, x+1, x+2, x+3 are provably consecutive and
        # the load-store vectorizer makes them one ld.shared.v4 (and addresses take one register)
        llvm.set_option("", "--nvptx-short-ptr")
        _ready = True
    return llvm
