"""A/B of two versions of one task: each figure's A, B, Δ, Δ% and a verdict, the largest changes first.

Each side may be several repeated profiles; A and B are then their medians and the verdict says
whether the Δ is a change or noise, by one stated rule (docs/counters.md, "Changed or noise"):

    noise  when  |median(B) - median(A)|  <=  K(n) * (range(A) + range(B)) + quantum

`range` is the spread of a side's repeats (max - min); the two sides' spreads are pooled (added).
`quantum` is the counter's step: the greatest common divisor of the differences between repeats of
one side when the figure is a whole number (the H200's DRAM byte counters move in 256-byte steps),
or, where no repeat moved, ncu's own unit (32-byte sectors for bytes; nothing for a count or a
float). K(n), n the fewer repeats of the two sides, is the 99.9th percentile of
|Δ of medians| / (range A + range B) when both sides draw from one normal distribution (2e6
simulated pairs each): a figure that did not change is called 'changed' about once in 1000 A/Bs
(uniform noise, the worst continuous shape tried, 1 in 400 at n = 3; `benchmarks/counters_noise_rule.py`).
K(3) = 2: with the bare spread (K = 1) one figure in 40 to 100 was a false alarm, too many for an
A/B of some 30 figures. A doubling of bytes or instructions stays thousands of bands away. With
one profile a side there is no spread: an exact figure (a count fixed by the code and the launch,
`Figure.exact`) that moved has changed; any other is 'unsure' (profile with repeats to tell).

Verdicts: 'changed', 'unsure', 'noise', 'same' (every repeat of both sides equal); rows sort in
that order, then by |Δ%|. Δ% is relative to A; a figure that is 0 in A and not in B has no Δ% and
sorts first among its verdict (it appeared). Stall reasons follow the figures, as
'stall: <reason>', by the same rule, then by |Δ| in cycles: a reason near zero in both profiles
swings by large percentages and would otherwise bury the figures (seen on the H200).
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from .record import FIGURE, STALL_EXPLAIN, TaskCounters

K_BY_REPEATS = {2: 12.5, 3: 2.0, 4: 1.0, 5: 0.73, 6: 0.55, 7: 0.48, 8: 0.40, 9: 0.37}   # n -> K(n)
UNIT_QUANTUM = {"B": 32.0}      # ncu counts memory traffic in 32-byte sectors
VERDICTS = ("changed", "unsure", "noise", "same")


def k_spread(n: int) -> float:
    """K(n) for n repeats a side (more than 9: K(9), a little wider than need be)."""
    return K_BY_REPEATS[min(max(n, 2), 9)]


def _is_whole(v: float) -> bool:
    return abs(v - round(v)) <= 1e-6 * max(1.0, abs(v))


def quantum(sides: Sequence[Sequence[float]], unit: str) -> float:
    """The counter's step as the repeats show it (differences within one side only: between the
    sides lies the change being judged), else ncu's unit for it."""
    diffs = [abs(round(x) - round(y)) for vals in sides for x in vals for y in vals
             if x != y and _is_whole(x) and _is_whole(y)]
    whole = all(_is_whole(v) for vals in sides for v in vals)
    if whole and diffs:
        return float(math.gcd(*diffs))
    if diffs or any(len(set(vals)) > 1 for vals in sides):
        return 0.0      # a float that moved: its spread is all there is
    return UNIT_QUANTUM.get(unit, 0.0)


@dataclass(frozen=True)
class DiffRow:
    key: str
    label: str
    unit: str
    a: float | None          # the median of A's repeats
    b: float | None
    explain: str = ""
    a_reps: tuple[float, ...] = ()
    b_reps: tuple[float, ...] = ()
    exact: bool = False

    @property
    def delta(self) -> float | None:
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def pct(self) -> float | None:
        d = self.delta
        if d is None or not self.a:
            return None
        return 100.0 * d / abs(self.a)

    @property
    def spread(self) -> float:
        """The pooled spread: range(A) + range(B)."""
        return sum(max(r) - min(r) for r in (self.a_reps, self.b_reps) if r)

    @property
    def quantum(self) -> float:
        return quantum([self.a_reps, self.b_reps], self.unit)

    @property
    def band(self) -> float:
        """How far the medians may be apart and still be noise."""
        return k_spread(min(len(self.a_reps), len(self.b_reps))) * self.spread + self.quantum

    @property
    def verdict(self) -> str:
        if self.a is None or self.b is None:
            return "changed" if (self.a or self.b) else "same"
        reps = self.a_reps + self.b_reps
        if reps and all(v == reps[0] for v in reps) or not reps and self.a == self.b:
            return "same"
        if len(self.a_reps) < 2 or len(self.b_reps) < 2:
            if self.exact:
                return "changed" if self.a != self.b else "same"
            return "unsure" if abs(self.b - self.a) > self.quantum else "noise"
        return "noise" if abs(self.b - self.a) <= self.band else "changed"

    def weight(self) -> float:
        """How large the change is, for ordering: |Δ%|, infinite for one that appeared or vanished."""
        if self.a is None or self.b is None:
            return math.inf if (self.a or self.b) else 0.0
        if self.pct is None:
            return math.inf if self.b else 0.0
        return abs(self.pct)


def _sides(x: TaskCounters | Sequence[TaskCounters]) -> list[TaskCounters]:
    return [x] if isinstance(x, TaskCounters) else list(x)


def _row(key: str, label: str, unit: str, explain: str, va: list[float], vb: list[float],
         exact: bool = False) -> DiffRow:
    med = (lambda v: statistics.median(v) if v else None)
    return DiffRow(key, label, unit, med(va), med(vb), explain, tuple(va), tuple(vb), exact)


def diff(a: TaskCounters | Sequence[TaskCounters], b: TaskCounters | Sequence[TaskCounters]) -> list[DiffRow]:
    """`a`, `b`: one profile each, or each side's repeats."""
    sa, sb = _sides(a), _sides(b)
    rank = {v: i for i, v in enumerate(VERDICTS)}
    rows = []
    for key in dict.fromkeys(k for r in sa + sb for k in r.figures):
        f = FIGURE.get(key)
        va = [r.figures[key] for r in sa if key in r.figures]
        vb = [r.figures[key] for r in sb if key in r.figures]
        rows.append(_row(key, f.label if f else key, f.unit if f else "", f.explain if f else "", va, vb,
                         bool(f and f.exact)))
    stalls = []
    for reason in dict.fromkeys(k for r in sa + sb for k in r.stalls):
        va = [r.stalls[reason] for r in sa if reason in r.stalls]
        vb = [r.stalls[reason] for r in sb if reason in r.stalls]
        if any(va) or any(vb):
            stalls.append(_row(f"stall:{reason}", f"stall: {reason}", "cycles/inst",
                               "cycles a warp stalled for this reason per issued instruction: "
                               + STALL_EXPLAIN.get(reason, ""), va, vb))
    return (sorted(rows, key=lambda r: (rank[r.verdict], -r.weight()))
            + sorted(stalls, key=lambda r: (rank[r.verdict], -abs(r.delta or 0.0))))


def changed(rows: list[DiffRow]) -> list[DiffRow]:
    return [r for r in rows if r.verdict == "changed"]
