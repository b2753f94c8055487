"""A kernel's CHI IR stages as a pass view: each stage's text and its diff against the stage before.

Compiler Explorer's pass view is the model: step through `from_ast → … → after_offload` and see
what each pass changed. Quadrants renumbers statements (`$12`) from pass to pass, so a plain
diff shows every line as changed; `normalise` renames them in order of appearance first.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_STMT_ID = re.compile(r"\$\d+")


@dataclass
class PassStep:
    stage: str
    text: str
    previous: str | None      # the stage before, None for the first
    diff: str                 # unified diff previous → this (empty for the first, or no change)
    added: int
    removed: int


def normalise(text: str) -> str:
    """Statement ids `$N` renamed `$0, $1, …` in order of first appearance."""
    ids: dict[str, str] = {}
    return _STMT_ID.sub(lambda m: ids.setdefault(m.group(0), f"${len(ids)}"), text)


def pass_steps(kernel, renumber: bool = True) -> list[PassStep]:
    steps: list[PassStep] = []
    prev_name: str | None = None
    prev_text: str | None = None
    for stage, _ in kernel.stages:
        text = kernel.stage_text(stage)
        diff, added, removed = "", 0, 0
        if prev_text is not None:
            a, b = (normalise(prev_text), normalise(text)) if renumber else (prev_text, text)
            lines = list(difflib.unified_diff(a.splitlines(), b.splitlines(), prev_name or "", stage, lineterm="", n=3))
            diff = "\n".join(lines)
            added = sum(1 for ln in lines if ln.startswith("+") and not ln.startswith("+++"))
            removed = sum(1 for ln in lines if ln.startswith("-") and not ln.startswith("---"))
        steps.append(PassStep(stage, text, prev_name, diff, added, removed))
        prev_name, prev_text = stage, text
    return steps
