"""A run: one workload set executed with warm-ups and N timed repeats, kept whole.

Every launch time is kept (not just a median), so any two runs can be compared later with the
full statistics, and a run can be exported as a trace. The repeats are made in *rounds* (blocks
spread over the run, the workloads taking turns), and each launch knows its round: launches of
one round share the machine's state of that moment, so the statistics resample rounds first. The context says what was measured
(device, clocks, driver, compile mode, the hash of each task's code and overrides, the
project's git revision), because a comparison is only as good as knowing what changed.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from .context import RunContext

STATUSES = ("running", "complete", "stopped", "failed", "interrupted")
TOTAL = "(workload total)"   # the pseudo-task that sums every task of one repeat


@dataclass(slots=True)
class Launch:
    """One timed launch inside a run, in launch order."""
    task: str
    kernel: str
    workload: str
    repeat: int
    ms: float
    grid: int = 0
    block: int = 0
    cpu_ms: float | None = None   # CPU backend: process CPU time of the launch
    round: int | None = None      # the block of repeats it was made in; None: saved before rounds

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Run:
    name: str | None = None
    context: RunContext = field(default_factory=RunContext)
    launches: list[Launch] = field(default_factory=list)
    compile: dict = field(default_factory=dict)     # task -> {stage: seconds, 'tier': ...}
    status: str = "complete"                        # one of STATUSES
    message: str = ""                               # why stopped or failed; warnings (clocks moved)
    created: float = field(default_factory=time.time)
    id: int | None = None

    @property
    def label(self) -> str:
        return self.name or (f"#{self.id}" if self.id is not None else "(unsaved)")

    def tasks(self) -> list[str]:
        """Task names in the order they first launched."""
        return list(dict.fromkeys(ln.task for ln in self.launches))

    @property
    def metric(self) -> str:
        """What the statistics compare: CPU time where every launch has it, else wall time.

        The CPU backend times launches on a machine shared with everything else: wall time there
        mostly measures the other processes, while the process CPU time of a launch is the work
        it did. CUDA launches are timed by CUDA events on the device (wall time, `ms`).
        """
        has = [ln.cpu_ms is not None for ln in self.launches]
        return "cpu_ms" if has and all(has) else "ms"

    def samples(self, task: str, metric: str | None = None) -> np.ndarray:
        metric = metric or self.metric
        if task == TOTAL:
            return self.totals(metric)
        return np.array([getattr(ln, metric) for ln in self.launches if ln.task == task], dtype=np.float64)

    @property
    def rounds_known(self) -> bool:
        """Whether every launch knows its round (runs saved before rounds were recorded do not,
        unless their context says how many repeats a round had)."""
        return all(ln.round is not None for ln in self.launches) or bool(self.context.per_round)

    def _round_of(self, ln: Launch) -> int:
        """A launch's round; for launches saved without one, the repeat block of `per_round` where
        the context has it (interleaved runs were always made in such blocks), else one round:
        an old run was one block of launches in time."""
        if ln.round is not None:
            return ln.round
        per = self.context.per_round
        return ln.repeat // per if per else 0

    def round_samples(self, task: str, metric: str | None = None) -> dict[int, np.ndarray]:
        """A task's launch times by round (round index -> times), rounds in order."""
        metric = metric or self.metric
        if task == TOTAL:
            return self.round_totals(metric)
        out: dict[int, list[float]] = {}
        for ln in self.launches:
            if ln.task == task:
                out.setdefault(self._round_of(ln), []).append(getattr(ln, metric))
        return {r: np.array(v, dtype=np.float64) for r, v in sorted(out.items())}

    def medians(self, metric: str | None = None) -> dict[str, float]:
        return {t: float(np.median(self.samples(t, metric))) for t in self.tasks()}

    def _repeat_totals(self, metric: str) -> dict[int, tuple[int, float]]:
        """repeat -> (round, every task's launch time of that repeat summed), complete repeats only,
        so a stopped run's partial last repeat does not look fast."""
        per: dict[int, float] = {}
        seen: dict[int, set] = {}
        rnd: dict[int, int] = {}
        for ln in self.launches:
            per[ln.repeat] = per.get(ln.repeat, 0.0) + getattr(ln, metric)
            seen.setdefault(ln.repeat, set()).add((ln.workload, ln.task))
            rnd.setdefault(ln.repeat, self._round_of(ln))
        if not per:
            return {}
        full = max(len(s) for s in seen.values())
        return {r: (rnd[r], v) for r, v in sorted(per.items()) if len(seen[r]) == full}

    def totals(self, metric: str | None = None) -> np.ndarray:
        """The workload total per repeat: every task's launch time of that repeat, summed."""
        return np.array([v for _, v in self._repeat_totals(metric or self.metric).values()], dtype=np.float64)

    def round_totals(self, metric: str | None = None) -> dict[int, np.ndarray]:
        """The workload totals by round (round index -> totals of its complete repeats)."""
        out: dict[int, list[float]] = {}
        for rnd, v in self._repeat_totals(metric or self.metric).values():
            out.setdefault(rnd, []).append(v)
        return {r: np.array(v, dtype=np.float64) for r, v in sorted(out.items())}

    def timer_resolution_ms(self, metric: str | None = None) -> float:
        c = self.context
        return float((c.cpu_timer_resolution_ms or 0.0) if (metric or self.metric) == "cpu_ms" else c.timer_resolution_ms)

    def to_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "created": self.created, "status": self.status,
                "message": self.message, "context": self.context.to_dict(), "compile": self.compile,
                "launches": [ln.to_dict() for ln in self.launches]}

    @classmethod
    def from_dict(cls, d: dict) -> "Run":
        return cls(d.get("name"), RunContext.from_dict(d.get("context", {})), [Launch(**ln) for ln in d.get("launches", [])],
                   d.get("compile", {}), d.get("status", "complete"), d.get("message", ""),
                   d.get("created", time.time()), d.get("id"))
