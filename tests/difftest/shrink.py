"""Delta debugging of a failing program down to a small reproducer.

The unit of removal is a statement with everything indented under it (an `if` with its body, a
kernel with its body), so what is left still parses more often than not. A candidate is kept
when it still fails the same way: the same mismatch kind and, for errors, the same error type
(a candidate that breaks the program differently - a NameError after removing a definition - is
rejected by that rule, with no knowledge of Python needed). Chunks of blocks are removed first,
halving the chunk size down to one (ddmin), then every remaining body that became empty gets a
`pass`; the loop repeats until nothing more can go."""
from __future__ import annotations

from typing import Callable

from .compare import Mismatch


KEEP = ("import ", "if not globals()", "    qd.init")  # the header that makes a reproducer run alone


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of every statement with its indented suite, innermost ones included."""
    out = []
    for s, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        ind = _indent(line)
        e = s + 1
        while e < len(lines) and (not lines[e].strip() or _indent(lines[e]) > ind):
            e += 1
        out.append((s, e))
    return out


def signature(ms: list[Mismatch]) -> tuple[str, str]:
    """What "fails the same way" compares: the kind, and the error's type or the failing key's prefix."""
    if not ms:
        return ("", "")
    m = ms[0]
    if m.kind in ("ours_error", "ref_error", "both_error"):
        return (m.kind, m.detail.split(":")[0])
    if m.kind == "crash":
        marks = [ln for ln in m.detail.splitlines() if "[E " in ln or "Assertion" in ln]
        return (m.kind, marks[0].split("]", 2)[-1].strip() if marks else "")
    return (m.kind, "")


def shrink(source: str, fails: Callable[[str], list[Mismatch]], budget: int = 400) -> tuple[str, int]:
    """The smallest text found that fails like `source` does, and how many candidates were run."""
    want = signature(fails(source))
    if not want[0]:
        return source, 1
    tries = 1
    lines = source.splitlines()

    def still(cand: list[str]) -> bool:
        nonlocal tries
        tries += 1
        return signature(fails("\n".join(cand) + "\n")) == want

    changed = True
    while changed and tries < budget:
        changed = False
        bl = [b for b in blocks(lines) if not lines[b[0]].startswith(KEEP)]
        chunk = max(1, len(bl) // 2)
        while chunk >= 1 and tries < budget:
            i = 0
            bl = [b for b in blocks(lines)
                  if not lines[b[0]].startswith(KEEP)]
            progressed = False
            while i < len(bl) and tries < budget:
                group = bl[i:i + chunk]
                drop = set()
                for s, e in group:
                    drop.update(range(s, e))
                cand = [ln for n, ln in enumerate(lines) if n not in drop]
                if len(cand) < len(lines) and still(cand):
                    lines = cand
                    changed = progressed = True
                    bl = [b for b in blocks(lines)
                          if not lines[b[0]].startswith(KEEP)]
                    continue
                i += chunk
            if not progressed:
                chunk //= 2
        # bodies emptied by a removal: try the statement's suite as `pass`
        for s, e in reversed(blocks(lines)):
            if tries >= budget:
                break
            if lines[s].startswith(KEEP):
                continue
            if e - s > 2 and lines[s].rstrip().endswith(":"):
                ind = " " * (_indent(lines[s + 1]))
                cand = lines[:s + 1] + [ind + "pass"] + lines[e:]
                if still(cand):
                    lines, changed = cand, True
                    break  # block positions changed: list them again
    return "\n".join(lines) + "\n", tries
