"""Point an LLVM error at a file and line a person can open.

llvmlite reports a parse error against `<string>:LINE:COL`, and a verifier error with no line
at all (it prints the offending instructions). An LLVM-IR override is edited by hand, so its
errors must name the override file and the line, the way a compiler would. The pool names the
module text that failed as `<entry>` (the task's entry point, which is the task's name); here,
in the app process, that becomes the file the text came from. This is text matching only: the
app process never parses LLVM IR.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_AT = re.compile(r"<([^<>\s]+)>:(\d+):(\d+):")
_DEF = re.compile(r"^\s*(%[-\w.$\"]+)\s*=")


@dataclass(frozen=True)
class Source:
    entry: str      # the task (entry point) whose module text this is
    label: str      # what to call it in a message: an override's path, or '<task>_before_ptx.ll (generated)'
    text: str
    edited: bool    # an override or a load-folder file (searched first)


def _bare(name: str) -> str:
    return name.replace('"', "")


def _verifier_line(error: str, sources: list[Source]) -> str | None:
    """`label:N` of the first instruction a verifier message prints, found by the value it defines."""
    names = [_bare(m.group(1)) for m in map(_DEF.match, error.splitlines()[1:]) if m]
    for name in names:
        for src in sorted(sources, key=lambda s: not s.edited):
            for n, line in enumerate(src.text.splitlines(), 1):
                m = _DEF.match(line)
                if m and _bare(m.group(1)) == name:
                    return f"{src.label}:{n}"
    return None


def locate(error: str, sources: list[Source]) -> str:
    """The error with `<entry>:L:C` rewritten to `file:L:C`, or a verifier error given its line."""
    by_entry = {s.entry: s for s in sources}

    def sub(m):
        src = by_entry.get(m.group(1))
        return f"{src.label if src else m.group(1)}:{m.group(2)}:{m.group(3)}:"
    out = _AT.sub(sub, error)
    if out == error:
        where = _verifier_line(error.split(": ", 1)[-1], sources)
        if where:
            out = f"{where}: {out}"
    return out
