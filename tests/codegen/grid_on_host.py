"""A CUDA task module's own code run on the host, thread by thread, for tests on a machine with no GPU.

The NVPTX module text is the code generator's real output for the GPU (its grid-stride loops, coarsened
steps, stacked rows and guards). Retargeted to the host, with the special registers (`tid.x`, `ctaid.x`,
`ntid.x`, `nctaid.x`) read from globals that the harness sets, each call of the entry is one GPU thread:
calling it for every thread of a grid runs the launch serially. This checks the schedule's index
arithmetic and its remainders on the VM; it says nothing of memory ordering or speed, and it takes only
modules whose sole intrinsics are those registers (no shared memory, barriers or atomics).
"""
from __future__ import annotations

import ctypes
import re

import numpy as np

from qdexplorer.machine.llvm_binding import llvm_binding

REGS = ("tid.x", "ctaid.x", "ntid.x", "nctaid.x")


def host_text(text: str) -> str:
    """The module with the host's target, the registers as globals, and no `ptx_kernel` calling convention."""
    llvm = llvm_binding()
    out = []
    for line in text.splitlines():
        if line.startswith(("target triple", "target datalayout")):
            continue
        if line.startswith("declare") and "llvm.nvvm.read.ptx.sreg." in line:
            continue
        out.append(line)
    body = "\n".join(out)
    for reg in REGS:
        body = body.replace(f'call i32 @"llvm.nvvm.read.ptx.sreg.{reg}"()',
                            f'load i32, i32* @"emu.{reg}"')
    left = re.findall(r"@\"?llvm\.nvvm\.[\w.]+", body)
    if left:
        raise ValueError(f"only the special registers can be emulated, not {sorted(set(left))}")
    body = body.replace("define ptx_kernel void", "define void")
    triple = llvm.get_process_triple()
    head = f'target triple = "{triple}"\n' + "".join(f'@"emu.{r}" = global i32 0\n' for r in REGS)
    return head + body


class HostGrid:
    """The task's entry compiled for the host; `launch(args, grid, block)` runs every thread of the grid."""

    def __init__(self, text: str, entry: str):
        llvm = llvm_binding()
        mod = llvm.parse_assembly(host_text(text))
        mod.verify()
        tm = llvm.Target.from_default_triple().create_target_machine(opt=2)
        self._engine = llvm.create_mcjit_compiler(mod, tm)
        self._engine.finalize_object()
        self._regs = {r: ctypes.c_int32.from_address(self._engine.get_global_value_address(f"emu.{r}"))
                      for r in REGS}
        self._fn = self._engine.get_function_address(entry)

    def launch(self, params: list, grid: int, block: int) -> None:
        """`params`: the entry's parameters in order: NumPy arrays (passed as their data pointers), NumPy
        float32 / float64 scalars (as floats: they travel in other registers than ints) and ints."""
        types, values = [], []
        for p in params:
            if isinstance(p, np.ndarray):
                types.append(ctypes.c_void_p)
                values.append(p.ctypes.data)
            elif isinstance(p, (np.float32, np.float64)):
                types.append(ctypes.c_float if isinstance(p, np.float32) else ctypes.c_double)
                values.append(float(p))
            else:
                types.append(ctypes.c_int32)
                values.append(int(p))
        fn = ctypes.CFUNCTYPE(None, *types)(self._fn)
        self._regs["ntid.x"].value, self._regs["nctaid.x"].value = block, grid
        for b in range(grid):
            self._regs["ctaid.x"].value = b
            for t in range(block):
                self._regs["tid.x"].value = t
                fn(*values)
