"""Make ncu attribute counters to PTX lines: a copy of the PTX whose line table names the PTX itself.

ncu's source page attributes SASS to source lines through the line table the JIT builds from the
PTX's `.file`/`.loc` directives; it never attributes to PTX lines (`--print-source ptx` prints the
text with no counters). So the profiled copy drops the task's own `.loc`s and puts one before
every instruction naming *its line in the text the user sees*, with `.file 1` pointing at that
text: ncu's "source" is then the PTX, line for line. The directives are debug information only;
the instructions, and so the SASS, are unchanged (the GPU test checks the instruction counts).
`sass.py` hands ptxas the same copy, so each SASS instruction carries the PTX line it came from.
"""
from __future__ import annotations

import re

_LOC = re.compile(r"^\s*\.loc\s")
_FILE = re.compile(r'^\s*\.file\s+\d+\s+"')
# lines inside a function body that are not instructions: labels, directives, braces, comments
_NOT_INSN = re.compile(r"^\s*($|//|\.|\{|\}|[$\w.]+:\s*$|\))")


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
        if _LOC.match(text) or _FILE.match(text):
            continue
        if i in insn:
            out.append(f"\t.loc\t1 {i} 0")
        out.append(text)
    out.append(f'\t.file\t1 "{path}"')
    return "\n".join(out) + "\n"
