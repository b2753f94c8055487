"""Which source line each PTX line came from, read from the PTX's own `.file` / `.loc` directives.

With debug line tables, the NVPTX backend writes `.loc FILE LINE COL` before the instructions of a
source line; every instruction up to the next `.loc` belongs to that line. That is enough to map a
PTX selection to its source line and a source line to all its PTX lines, in both directions.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")


@dataclass
class LineMap:
    files: dict[int, str] = field(default_factory=dict)
    ptx_to_source: dict[int, tuple[str, int]] = field(default_factory=dict)   # PTX line → (file, line)

    def __bool__(self):
        return bool(self.ptx_to_source)

    def source_line(self, ptx_line: int) -> tuple[str, int] | None:
        return self.ptx_to_source.get(ptx_line)

    def ptx_lines(self, line: int, file: str | None = None) -> list[int]:
        """Every PTX line of a source line (of `file`, matched by path or by base name, if given)."""
        def same(f):
            return file is None or f == file or os.path.basename(f) == os.path.basename(file)
        return sorted(p for p, (f, n) in self.ptx_to_source.items() if n == line and same(f))


def line_map(ptx: str) -> LineMap:
    m = LineMap()
    lines = ptx.splitlines()
    for text in lines:  # LLVM's NVPTX backend writes the .file directives after the code
        f = _FILE.match(text)
        if f:
            m.files[int(f[1])] = f[2]
    current = None
    for i, text in enumerate(lines, start=1):
        if _FILE.match(text):
            continue
        loc = _LOC.match(text)
        if loc:
            current = (int(loc[1]), int(loc[2]))
            continue
        s = text.strip()
        if current is None or not s or s.startswith(("//", ".", "}", "{")) or s.endswith(":"):
            if s == "}":
                current = None  # a function ends; the next one starts with its own .loc
            continue
        file_no, line = current
        if line > 0:
            m.ptx_to_source[i] = (m.files.get(file_no, ""), line)
    return m
