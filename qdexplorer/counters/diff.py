"""A/B of two profiles of one task: each figure's A, B, Δ and Δ%, the largest changes first.

The window and the CLI show this same list. Δ% is relative to A; a figure that is 0 in A and
not in B has no Δ% and sorts first (it appeared). Stall reasons are compared too, as
'stall: <reason>', after the figures (largest |Δ| in cycles first): a reason near zero in both
profiles swings by large percentages and would otherwise bury the figures (seen on the H200).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .record import FIGURE, STALL_EXPLAIN, TaskCounters


@dataclass(frozen=True)
class DiffRow:
    key: str
    label: str
    unit: str
    a: float | None
    b: float | None
    explain: str = ""

    @property
    def delta(self) -> float | None:
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def pct(self) -> float | None:
        d = self.delta
        if d is None or not self.a:
            return None
        return 100.0 * d / abs(self.a)

    def weight(self) -> float:
        """How large the change is, for ordering: |Δ%|, infinite for one that appeared or vanished."""
        if self.a is None or self.b is None:
            return math.inf if (self.a or self.b) else 0.0
        if self.pct is None:
            return math.inf if self.b else 0.0
        return abs(self.pct)


def diff(a: TaskCounters, b: TaskCounters) -> list[DiffRow]:
    rows = []
    for key in dict.fromkeys(list(a.figures) + list(b.figures)):
        f = FIGURE.get(key)
        rows.append(DiffRow(key, f.label if f else key, f.unit if f else "", a.figures.get(key), b.figures.get(key),
                            f.explain if f else ""))
    stalls = []
    for reason in dict.fromkeys(list(a.stalls) + list(b.stalls)):
        va, vb = a.stalls.get(reason), b.stalls.get(reason)
        if (va or 0) or (vb or 0):
            stalls.append(DiffRow(f"stall:{reason}", f"stall: {reason}", "cycles/inst", va, vb,
                                  "cycles a warp stalled for this reason per issued instruction: "
                                  + STALL_EXPLAIN.get(reason, "")))
    return sorted(rows, key=lambda r: -r.weight()) + sorted(stalls, key=lambda r: -abs(r.delta or 0.0))
