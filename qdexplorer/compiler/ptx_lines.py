"""Which source line each PTX line came from, read from the PTX's own `.file` / `.loc` directives.

With debug line tables, the NVPTX backend writes `.loc FILE LINE COL` before the instructions of a
source line; every instruction up to the next `.loc` belongs to that line. That is enough to map a
PTX selection to its source line and a source line to all its PTX lines, in both directions.

The other way round, `with_ptx_line_table` writes a copy of the PTX whose line table names the PTX
itself: it drops the task's own `.loc`s and puts one before every instruction naming *its line in
the text the user sees*, with `.file 1` pointing at that text. ncu's source page (which attributes
SASS to source lines through the line table, never to PTX lines) then shows counters per PTX line,
and `sass.py`'s SASS carries the PTX line of each instruction. The directives are debug
information only; the instructions, and so the SASS, are unchanged (the GPU test checks the
instruction counts).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)")
_ANY_LOC = re.compile(r"^\s*\.loc\s")               # the directives a line-table copy drops,
_ANY_FILE = re.compile(r'^\s*\.file\s+\d+\s+"')    # whatever their operands
# lines inside a function body that are not instructions: labels, directives, braces, comments
_NOT_INSN = re.compile(r"^\s*($|//|\.|\{|\}|[$\w.]+:\s*$|\))")


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


def instruction_lines(ptx: str) -> list[int]:
    """The 1-based lines of `ptx` that hold instructions (inside an entry or function body)."""
    out, depth = [], 0
    for i, text in enumerate(ptx.splitlines(), start=1):
        s = text.split("//", 1)[0]
        if depth > 0 and not _NOT_INSN.match(s) and ";" in s:
            out.append(i)
        depth += s.count("{") - s.count("}")
        depth = max(depth, 0)
    return out


def with_ptx_line_table(ptx: str, path: str) -> str:
    """`ptx` with its line table replaced by one that maps each instruction to its own line.

    Line numbers are those of `ptx` as given (the user's text), although the copy has more lines:
    each instruction keeps the number it had. `path` is what `.file 1` names (and what ncu reports
    as the source file)."""
    lines = ptx.splitlines()
    insn = set(instruction_lines(ptx))
    out: list[str] = []
    for i, text in enumerate(lines, start=1):
        if _ANY_LOC.match(text) or _ANY_FILE.match(text):
            continue
        if i in insn:
            out.append(f"\t.loc\t1 {i} 0")
        out.append(text)
    out.append(f'\t.file\t1 "{path}"')
    return "\n".join(out) + "\n"
