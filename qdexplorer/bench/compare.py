"""Two runs side by side: per-task statistics, the workload total, and the CI gate.

Each task is compared round by round (`stats.compare_rounds`). Two runs are *paired* when they
were measured interleaved with each other (the same `pair` token in their contexts): their rounds
are then matched one to one, and only rounds both sides finished count. Tasks present in only one
run are listed apart rather than guessed at. The timer resolution used for "too small to tell" is
the coarser of the two runs' timers.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from .run import TOTAL, Run
from .stats import ALPHA, BOOTSTRAP, TaskStats, compare_rounds, default_threshold
from ..wording import plural, rounds_a_side


@dataclass
class Comparison:
    a: str                       # labels of the two sides (run names, or 'generated' / 'override')
    b: str
    metric: str                  # 'ms' (wall or CUDA-event time) or 'cpu_ms' (CPU backend: CPU time)
    threshold: float             # relative changes below this count as 'same'
    tasks: list[TaskStats]       # sorted by impact: the largest absolute change in ms first
    total: TaskStats | None
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    paired: bool = False         # the runs were interleaved with each other: rounds matched one to one
    alpha: float = ALPHA
    ids: tuple[int | None, int | None] = (None, None)   # the saved runs' ids (None: a side not saved)
    rounds_made: int = 0         # rounds a side as measured (a fresh comparison's --rounds)

    def more_rounds(self, n: int) -> str:
        """How to measure about `n` more rounds a side, for these two sides: adding to saved runs where both
        are saved and separate, else comparing again with more rounds (nothing saved to add to)."""
        if all(i is not None for i in self.ids) and not self.paired:
            return f"bench --add-to {self.a} --rounds {n}, and --add-to {self.b}"
        return f"compare again with --rounds {self.rounds_made + n}" if self.rounds_made else \
            f"measure again with {n} more rounds"

    def task(self, name: str) -> TaskStats:
        for t in self.tasks:
            if t.task == name:
                return t
        raise KeyError(name)

    def regressions(self, pct: float) -> list[TaskStats]:
        """Tasks slower by more than `pct` percent with 95% confidence (the interval's low end)."""
        limit = 1.0 + pct / 100.0
        return [t for t in self.tasks if t.verdict == "slower" and t.ci[0] > limit]

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "metric": self.metric, "threshold": self.threshold,
                "paired": self.paired, "alpha": self.alpha, "tasks": [t.to_dict() for t in self.tasks],
                "total": self.total.to_dict() if self.total else None, "only_a": self.only_a,
                "only_b": self.only_b, "warnings": self.warnings}

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["task", "n_a", "n_b", "rounds_a", "rounds_b", "median_a_ms", "median_b_ms", "ratio", "ci_low",
                    "ci_high", "p", "noise_floor", "verdict", "rounds_needed", "reason"])
        for t in self.tasks + ([self.total] if self.total else []):
            w.writerow([t.task, t.n_a, t.n_b, t.rounds_a, t.rounds_b, f"{t.median_a:.6g}", f"{t.median_b:.6g}",
                        f"{t.ratio:.6g}", f"{t.ci[0]:.6g}", f"{t.ci[1]:.6g}", f"{t.p:.6g}", f"{t.noise_floor:.6g}",
                        t.verdict, "" if t.rounds_needed is None else t.rounds_needed, t.reason])
        return buf.getvalue()

    def table(self) -> str:
        """The per-task table as the CLI prints it; `unsure` rows say why underneath."""
        rows = self.tasks + ([self.total] if self.total else [])
        width = max([len(t.task) for t in self.tasks] + [len(TOTAL), 4])
        what = "CPU time per launch" if self.metric == "cpu_ms" else "time per launch"
        rounds = sorted({(t.rounds_a, t.rounds_b) for t in rows})
        how = ("interleaved, rounds paired" if self.paired else "separate runs") + (
            f", {rounds_a_side(*rounds[0])}" if len(rounds) == 1 else "")
        level = f"{1 - self.alpha:.0%} CI"
        lines = [f"A = {self.a}   B = {self.b}   ({what}; {how}; changes under {self.threshold:.0%} count as same)",
                 f"{'task':<{width}}  {'A median ms':>12}  {'B median ms':>12}  {'B/A':>6}  {level:>15}  "
                 f"{'floor':>6}  verdict"]
        for t in rows:
            ci = f"[{t.ci[0]:5.3f}, {t.ci[1]:5.3f}]" if not math.isnan(t.ci[0]) else "-"
            floor = f"±{t.noise_floor:.0%}" if not math.isnan(t.noise_floor) else "-"
            lines.append(f"{t.task:<{width}}  {t.median_a:12.4f}  {t.median_b:12.4f}  {t.ratio:6.3f}  {ci:>15}  "
                         f"{floor:>6}  {t.verdict}")
            if t.verdict == "unsure":
                more = (f"; about {plural(t.rounds_needed, 'more round')} a side would settle it "
                        f"({self.more_rounds(t.rounds_needed)})" if t.rounds_needed else "")
                lines.append(f"{'':<{width}}    unsure: {t.reason}{more}")
        for name in self.only_a:
            lines.append(f"{name:<{width}}  only in A")
        for name in self.only_b:
            lines.append(f"{name:<{width}}  only in B")
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def paired_runs(a: Run, b: Run) -> bool:
    """Whether `a` and `b` are the two sides of one interleaved comparison."""
    return bool(a.context.pair) and a.context.pair == b.context.pair and a is not b


def _sides(a: dict[int, np.ndarray], b: dict[int, np.ndarray], paired: bool):
    if not paired:
        return list(a.values()), list(b.values())
    both = [r for r in a if r in b]   # a stopped comparison's last round may have one side only
    return [a[r] for r in both], [b[r] for r in both]


def compare_runs(a: Run, b: Run, alpha: float = ALPHA, threshold: float | None = None, label_a: str | None = None,
                 label_b: str | None = None, n_boot: int = BOOTSTRAP) -> Comparison:
    """Per-task statistics of B against A; `threshold` None: `stats.default_threshold` for these runs."""
    paired = paired_runs(a, b)
    if threshold is None:
        interleaved = paired or bool(a.context.interleaved_with and b.context.interleaved_with)
        threshold = default_threshold({a.context.backend, b.context.backend}, interleaved)
    metric = "cpu_ms" if a.metric == b.metric == "cpu_ms" else "ms"
    resolution = max(a.timer_resolution_ms(metric), b.timer_resolution_ms(metric))
    ta, tb = a.tasks(), b.tasks()
    common = [t for t in ta if t in set(tb)]

    def stats(task: str) -> TaskStats | None:
        sa, sb = _sides(a.round_samples(task, metric), b.round_samples(task, metric), paired)
        if not any(len(x) for x in sa) or not any(len(x) for x in sb):
            return None
        return compare_rounds(task, sa, sb, resolution, alpha, threshold, paired, n_boot)
    rows = [s for s in map(stats, common) if s is not None]
    rows.sort(key=lambda r: abs(r.impact_ms), reverse=True)
    # the total only means something when both sides ran the same tasks
    total = stats(TOTAL) if common and set(ta) == set(tb) else None
    warnings = []
    for side, run in (("A", a), ("B", b)):
        if run.status != "complete":
            warnings.append(f"{side} ({run.label}) is {run.status}: {run.message or 'partial data'}")
        elif run.message:
            warnings.append(f"{side} ({run.label}): {run.message}")
        if run.launches and not run.rounds_known:
            warnings.append(f"{side} ({run.label}) was saved before runs were recorded in rounds: it counts as "
                            f"one round, so a change in it reads `unsure`; bench it again to compare")
    if a.id is not None and a.id == b.id:
        warnings.append(f"A and B are the same saved run ({a.label}, #{a.id}): a run compared with itself, "
                        f"so nothing here is a measurement of a change")
    ca, cb = a.context, b.context
    for key in ("backend", "device", "arch", "mode"):
        if getattr(ca, key) != getattr(cb, key):
            warnings.append(f"{key} differs: A {getattr(ca, key)!r}, B {getattr(cb, key)!r}")
    made = min(a.context.rounds or 0, b.context.rounds or 0)
    return Comparison(label_a or a.label, label_b or b.label, metric, threshold, rows, total,
                      [t for t in ta if t not in set(tb)], [t for t in tb if t not in set(ta)], warnings, paired,
                      alpha, (a.id, b.id), made)
