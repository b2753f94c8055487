"""`print_kernel_asm`: each task's PTX as `<task>.ptx` in a folder, as Quadrants writes it.

Quadrants' `qd.init(print_kernel_asm=True)` leaves every kernel's assembly in the working folder
for reading and diffing. The file is the PTX that runs (an override's, when one is active),
never with the NUL terminator the driver wants: ptxas stops reading at a NUL, and so do diffs.
In whole-module mode a unit is one module, written once as `<kernel>_kernel_whole.ptx`.
"""
from __future__ import annotations

from pathlib import Path

from .artifacts import CompiledTask
from .dump import dump_artifact


def write_ptx(folder: str | Path, compiled: list[CompiledTask]) -> list[Path]:
    written: dict[str, Path] = {}
    for ct in compiled:
        if ct.ok and ct.ptx and ct.unit not in written:
            written[ct.unit] = dump_artifact(folder, ct.unit, ".ptx", ct.ptx.encode())
    return list(written.values())
