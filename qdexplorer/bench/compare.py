"""Two runs side by side: per-task statistics, the workload total, and the CI gate.

Tasks present in only one run are listed apart rather than guessed at. The timer resolution
used for "too small to tell" is the coarser of the two runs' timers.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from .run import TOTAL, Run
from .stats import ALPHA, TaskStats, compare_samples, default_threshold


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
        return {"a": self.a, "b": self.b, "metric": self.metric, "threshold": self.threshold, "tasks": [t.to_dict() for t in self.tasks],
                "total": self.total.to_dict() if self.total else None, "only_a": self.only_a,
                "only_b": self.only_b, "warnings": self.warnings}

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["task", "n_a", "n_b", "median_a_ms", "median_b_ms", "ratio", "ci_low", "ci_high", "p",
                    "verdict"])
        for t in self.tasks + ([self.total] if self.total else []):
            w.writerow([t.task, t.n_a, t.n_b, f"{t.median_a:.6g}", f"{t.median_b:.6g}", f"{t.ratio:.6g}",
                        f"{t.ci[0]:.6g}", f"{t.ci[1]:.6g}", f"{t.p:.6g}", t.verdict])
        return buf.getvalue()

    def table(self) -> str:
        """The per-task table as the CLI prints it."""
        width = max([len(t.task) for t in self.tasks] + [len(TOTAL), 4])
        what = "CPU time per launch" if self.metric == "cpu_ms" else "time per launch"
        lines = [f"A = {self.a}   B = {self.b}   ({what}; changes under {self.threshold:.0%} count as same)",
                 f"{'task':<{width}}  {'A median ms':>12}  {'B median ms':>12}  {'B/A':>6}  {'95% CI':>15}  "
                 f"{'p':>8}  verdict"]
        for t in self.tasks + ([self.total] if self.total else []):
            lines.append(f"{t.task:<{width}}  {t.median_a:12.4f}  {t.median_b:12.4f}  {t.ratio:6.3f}  "
                         f"[{t.ci[0]:5.3f}, {t.ci[1]:5.3f}]  {t.p:8.2g}  {t.verdict}")
        for name in self.only_a:
            lines.append(f"{name:<{width}}  only in A")
        for name in self.only_b:
            lines.append(f"{name:<{width}}  only in B")
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


def compare_runs(a: Run, b: Run, alpha: float = ALPHA, threshold: float | None = None, label_a: str | None = None,
                 label_b: str | None = None) -> Comparison:
    """Per-task statistics of B against A; `threshold` None: `stats.default_threshold` for these runs."""
    if threshold is None:
        interleaved = bool(a.context.interleaved_with and b.context.interleaved_with)
        threshold = default_threshold({a.context.backend, b.context.backend}, interleaved)
    metric = "cpu_ms" if a.metric == b.metric == "cpu_ms" else "ms"
    resolution = max(a.timer_resolution_ms(metric), b.timer_resolution_ms(metric))
    ta, tb = a.tasks(), b.tasks()
    common = [t for t in ta if t in set(tb)]
    rows = [compare_samples(t, a.samples(t, metric), b.samples(t, metric), resolution, alpha, threshold)
            for t in common]
    rows.sort(key=lambda r: abs(r.impact_ms), reverse=True)
    total = None
    if common:
        sa, sb = a.totals(metric), b.totals(metric)
        if len(sa) and len(sb):
            # the total only means something when both sides ran the same tasks
            total = compare_samples(TOTAL, sa, sb, resolution, alpha, threshold) if set(ta) == set(tb) else None
    warnings = []
    for side, run in (("A", a), ("B", b)):
        if run.status != "complete":
            warnings.append(f"{side} ({run.label}) is {run.status}: {run.message or 'partial data'}")
        elif run.message:
            warnings.append(f"{side} ({run.label}): {run.message}")
    ca, cb = a.context, b.context
    for key in ("backend", "device", "arch", "mode"):
        if getattr(ca, key) != getattr(cb, key):
            warnings.append(f"{key} differs: A {getattr(ca, key)!r}, B {getattr(cb, key)!r}")
    return Comparison(label_a or a.label, label_b or b.label, metric, threshold, rows, total,
                      [t for t in ta if t not in set(tb)], [t for t in tb if t not in set(ta)], warnings)
