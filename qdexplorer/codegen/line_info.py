"""Debug line tables for NVPTX: `.file` / `.loc` in the PTX, so the window can map a PTX line to
the kernel's source line and back (`compiler/ptx_lines.py`).

`DebugDirectivesOnly` asks LLVM for the line directives alone (no DWARF sections), which is what
the driver's JIT and ptxas read and what costs nothing at run time. Statements that carry a
"file:line" (array stores, loads and atomics) move the location; everything in between keeps
the last one, so every instruction, inlined libdevice calls included, has a location.
"""
from __future__ import annotations

import os

from llvmlite import ir as L

from .. import ir

I32 = L.IntType(32)


class LineInfo:
    def __init__(self, m: L.Module, fn: L.Function, task: ir.Task):
        self.m = m
        path = task.file or "<kernel>"
        self.file = m.add_debug_info("DIFile", {"filename": os.path.basename(path),
                                                "directory": os.path.dirname(path)})
        cu = m.add_debug_info("DICompileUnit", {
            "language": L.DIToken("DW_LANG_Python"), "file": self.file, "producer": "qdexplorer",
            "isOptimized": True, "runtimeVersion": 0, "emissionKind": L.DIToken("DebugDirectivesOnly")},
            is_distinct=True)
        first = task.lines[0] if task.lines else 0
        self.sp = m.add_debug_info("DISubprogram", {
            "name": task.name, "scope": self.file, "file": self.file, "line": first, "scopeLine": first,
            "type": m.add_debug_info("DISubroutineType", {"types": m.add_metadata([])}),
            "spFlags": L.DIToken("DISPFlagDefinition | DISPFlagOptimized"), "unit": cu}, is_distinct=True)
        fn.set_metadata("dbg", self.sp)
        m.add_named_metadata("llvm.dbg.cu", cu)
        m.add_named_metadata("llvm.module.flags", m.add_metadata([I32(2), "Debug Info Version", I32(3)]))
        self._locs: dict[int, L.DIValue] = {}
        self.first = self.at(first)

    def at(self, line: int):
        loc = self._locs.get(line)
        if loc is None:
            loc = self._locs[line] = self.m.add_debug_info("DILocation", {"line": line, "column": 0,
                                                                          "scope": self.sp})
        return loc


def stmt_line(s) -> int | None:
    """The source line a statement names ("file:line" on stores, loads and atomics), if any."""
    where = getattr(s, "where", "") or getattr(getattr(s, "value", None), "where", "")
    if not where:
        return None
    try:
        return int(where.rsplit(":", 1)[1])
    except (IndexError, ValueError):
        return None
