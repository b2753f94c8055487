"""Sweeps: every combination of a project's settings (block_dim, fast_math, mode) timed on N devices.

Each engine passed in holds one device (with `--cluster`, one Ray actor on one GPU), and each
runs on a thread of its own, so the N devices measure at once; Ray places the actors, nothing
here schedules. The variants other than the default are dealt out over the devices, and every
device also times the default: a variant is only ever compared with the default measured on the
same device, interleaved with it round by round (round r runs the device's variants in an order
rotated by r), so the drift of that device over time hits both alike, and a GPU that is a little
faster than its neighbour shifts no ratio. Each variant's launches on a device are one run saved
in the history, named `SWEEP:VARIANT@DEVICE` and tagged in its context (`sweep`, `variant`,
`sweep_default`, and the `placement` a cluster run records), so a sweep can be read back later
(`load_sweep`). A variant only re-links or re-launches what differs: the engine keeps every
variant's compiled artifacts in its cache, and `Engine.variant` swaps them in.
"""
from __future__ import annotations

import datetime
import itertools
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..ir.errors import QdError
from ..machine.launch_spec import DEFAULT_BLOCK
from .compare import Comparison, compare_runs
from .engine_api import BenchEngine
from .history import History
from .run import Run
from .signals_held import signals_held
from .sweep_variant import SweepEngine, Variant, group_runs  # noqa: F401 - SweepEngine, Variant: this module's API too
from .sweep_lanes import Plan, Side, begin, finish, lacking, measure, reopen, resume_lanes
from ..wording import plural


def _block_dim(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1024:
        raise QdError(f"block_dim={text}: expected an integer from 1 to 1024")
    return int(text)


def _on_off(text: str) -> bool:
    t = text.lower()
    if t not in ("on", "off", "true", "false", "1", "0"):
        raise QdError(f"fast_math={text}: expected on or off")
    return t in ("on", "true", "1")


def _mode(text: str) -> str:
    if text not in ("per_task", "whole", "culink"):
        raise QdError(f"mode={text}: expected per_task, whole or culink")
    return text


# what a sweep can vary: the setting's name, how a value is read, and how it is shown
SETTINGS: dict[str, Callable[[str], Any]] = {"block_dim": _block_dim, "fast_math": _on_off, "mode": _mode}


def parse_over(specs: Sequence[str]) -> dict[str, list[Any]]:
    """`--over block_dim=64,128 --over fast_math=on,off` as {setting: [values]}."""
    out: dict[str, list[Any]] = {}
    for spec in specs:
        key, sep, values = spec.partition("=")
        key = key.strip()
        if not sep or not values.strip():
            raise QdError(f"--over {spec!r}: expected SETTING=V1,V2,… (settings: {', '.join(SETTINGS)})")
        if key not in SETTINGS:
            raise QdError(f"--over {spec!r}: a sweep can vary {', '.join(SETTINGS)}, not {key!r}")
        if key in out:
            raise QdError(f"--over {key} is given twice: list all its values in one --over")
        out[key] = list(dict.fromkeys(SETTINGS[key](v.strip()) for v in values.split(",") if v.strip()))
    if not out:
        raise QdError("a sweep needs at least one --over SETTING=V1,V2,…")
    return out


def project_defaults(engine: BenchEngine, fast_math: bool | None = None) -> dict[str, Any]:
    """The project's own value of each setting a sweep can vary: what every variant is compared
    with (`fast_math`: the value the engine was opened with, when it overrides the project's)."""
    cfg = engine.project.config
    return {"block_dim": cfg.block_dim or DEFAULT_BLOCK, "fast_math": cfg.fast_math if fast_math is None else fast_math,
            "mode": engine.mode}


def grid(over: dict[str, list[Any]], defaults: dict[str, Any]) -> tuple[list[Variant], Variant]:
    """Every combination of `over`, and the default: the project's own value of each swept setting
    (`defaults`), added first when the grid does not hold it already, since every ratio is against it."""
    keys = list(over)
    variants = [Variant(tuple(zip(keys, combo))) for combo in itertools.product(*(over[k] for k in keys))]
    default = Variant(tuple((k, defaults[k]) for k in keys))
    if default not in variants:
        variants.insert(0, default)
    return variants, default


@dataclass
class Cell:
    """One task under one variant on one device: its median and its ratio to the default there."""
    task: str
    variant: str
    device: str
    median_ms: float
    ratio: float = 1.0
    ci: tuple[float, float] = (float("nan"), float("nan"))
    verdict: str = "default"      # the default's own cell; else faster | slower | same | unsure
    best: bool = False
    reason: str = ""              # why the verdict (bench/stats.py's words)

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "variant": self.variant, "device": self.device, "median_ms": self.median_ms,
                "ratio": self.ratio, "ci": [None if math.isnan(c) else c for c in self.ci],
                "verdict": self.verdict, "best": self.best, "reason": self.reason}


@dataclass
class SweepRun:
    variant: Variant
    device: str        # where it ran: the placement's label, or "lane K" / "local"
    run: Run


@dataclass
class SweepResult:
    name: str
    variants: list[Variant]
    default: Variant
    runs: list[SweepRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # a device lost, and where its variants went
    _cells: list[Cell] | None = field(default=None, repr=False)

    @property
    def status(self) -> str:
        """The worst status of its runs, leaving out a lost device's (their variants went on
        elsewhere, and those runs count) unless every run is one."""
        kept = [r for r in self.runs if not r.run.context.extra.get("sweep_lost")] or self.runs
        states = {r.run.status for r in kept}
        return next((s for s in ("failed", "stopped", "interrupted") if s in states), "complete")

    def tasks(self) -> list[str]:
        return list(dict.fromkeys(t for r in self.runs for t in r.run.tasks()))

    def devices(self) -> list[str]:
        return list(dict.fromkeys(r.device for r in self.runs))

    def cells(self) -> list[Cell]:
        """Every (task, variant, device) measured, the default's first on each device; a variant's
        ratio and interval are against the default on its device (paired rounds); per task the
        variant with the lowest ratio among those clearly `faster` is marked best, else the default."""
        if self._cells is not None:
            return self._cells
        base = {r.device: r.run for r in self.runs if r.variant == self.default}
        against: dict[int, Comparison] = {i: compare_runs(base[r.device], r.run) for i, r in enumerate(self.runs)
                                          if r.variant != self.default and r.device in base}
        out: list[Cell] = []
        for task in self.tasks():
            rows: list[Cell] = []
            order = sorted(range(len(self.runs)), key=lambda i: (self.runs[i].variant != self.default,
                                                                  self.variants.index(self.runs[i].variant)))
            for i in order:
                r = self.runs[i]
                if task not in r.run.tasks():
                    continue
                median = float(r.run.medians().get(task, math.nan))
                if i not in against:
                    rows.append(Cell(task, r.variant.label, r.device, median,
                                     verdict="default" if r.variant == self.default else "no default here"))
                    continue
                try:
                    s = against[i].task(task)
                except KeyError:
                    rows.append(Cell(task, r.variant.label, r.device, median, math.nan, verdict="not in default"))
                    continue
                rows.append(Cell(task, r.variant.label, r.device, median, s.ratio, s.ci, s.verdict, reason=s.reason))
            faster = [c for c in rows if c.verdict == "faster"]
            pick = min(faster, key=lambda c: c.ratio) if faster else next(
                (c for c in rows if c.verdict == "default"), None)
            if pick is not None:
                pick.best = True
            out += rows
        self._cells = out
        return out

    def best(self, task: str) -> Cell | None:
        return next((c for c in self.cells() if c.task == task and c.best), None)

    def heatmap(self) -> tuple[list[str], list[str], list[list[float]]]:
        """(tasks, variant labels, ratio[task][variant]) for a heat map: 1.0 is the default, below
        is faster; NaN where a variant did not run a task. The default's column is 1.0."""
        tasks, labels = self.tasks(), [v.label for v in self.variants]
        grid_ = [[math.nan] * len(labels) for _ in tasks]
        for c in self.cells():
            i, j = tasks.index(c.task), labels.index(c.variant)
            if c.verdict == "default":
                grid_[i][j] = 1.0
            elif not math.isnan(c.ratio):
                grid_[i][j] = c.ratio
        return tasks, labels, grid_

    def table(self) -> str:
        cells = self.cells()
        vw = max([len(v.label) + 10 for v in self.variants] + [8])
        dw = max([len(d) for d in self.devices()] + [6])
        lines = [f"sweep {self.name}: {plural(len(self.variants), 'variant')} on {plural(len(self.devices()), 'device')}; ratio = "
                 f"variant / default on the same device, rounds paired; * = best per task (a variant only "
                 f"where clearly faster, else the default)"]
        for task in self.tasks():
            lines += ["", task, f"  {'variant':<{vw}} {'device':<{dw}} {'median ms':>11} {'ratio':>7} {'95% CI':>16}  "
                                f"verdict"]
            for c in (c for c in cells if c.task == task):
                name = c.variant + (" (default)" if c.verdict == "default" else "")
                ci = f"[{c.ci[0]:.3f}, {c.ci[1]:.3f}]" if not math.isnan(c.ci[0]) else ""
                ratio = f"{c.ratio:7.3f}" if not math.isnan(c.ratio) else f"{'-':>7}"
                lines.append(f"{'*' if c.best else ' '} {name:<{vw}} {c.device:<{dw}} {c.median_ms:11.4f} {ratio} "
                             f"{ci:>16}  {'' if c.verdict == 'default' else c.verdict}")
        lines += [f"note: {n}" for n in self.notes]
        for r in self.runs:
            message = "; ".join(m for m in r.run.message.split("; ") if m and m not in self.notes)
            if message:
                lines.append(f"note: {r.run.label}: {r.run.status}: {message}")
            elif r.run.message and r.run.status != "complete":
                lines.append(f"note: {r.run.label}: {r.run.status} (device lost, above)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "default": self.default.label,
                "variants": [v.to_dict() | {"label": v.label} for v in self.variants], "devices": self.devices(),
                "cells": [c.to_dict() for c in self.cells()], "notes": list(self.notes),
                "runs": [{"id": r.run.id, "name": r.run.name, "variant": r.variant.label, "device": r.device,
                          "status": r.run.status, "launches": len(r.run.launches),
                          "lost": bool(r.run.context.extra.get("sweep_lost")),
                          "moved_from": r.run.context.extra.get("sweep_moved_from")} for r in self.runs]}


def sweep(engines: Sequence[SweepEngine], over: dict[str, list[Any]], defaults: dict[str, Any],
          workloads: list[str] | None = None, rounds: int = 6, per_round: int = 5, warmup: int = 1, seed: int = 0,
          flush_l2: bool = True, name: str | None = None, history: History | None = None,
          on_progress: Callable[[int, int], None] | None = None, stop: threading.Event | None = None,
          on_note: Callable[[str], None] | None = None) -> SweepResult:
    """Time every variant of `over` on the devices of `engines` (one thread each), `rounds` rounds of
    `per_round` timed repeats per variant after `warmup` untimed ones (each swap of variant leaves
    caches cold), saving one run per variant and device in `history` turn by turn (sweep_lanes.py).
    Ctrl-C (or SIGTERM, which the CLI raises as KeyboardInterrupt(15)), or setting `stop` (the
    window's Stop), stops every device after its launch in flight and keeps every finished turn;
    the KeyboardInterrupt is raised again once all is saved. A device whose Ray actor dies is lost:
    its unfinished variants go on on the others (sweep_lanes.py), said through `on_note` and in the
    result's `notes`. The engines must not be used elsewhere until it returns."""
    if not engines:
        raise QdError("a sweep needs at least one engine")
    if rounds < 1 or per_round < 1 or warmup < 0:
        raise QdError("rounds and repeats must be at least 1, warm-ups at least 0")
    variants, default = grid(over, defaults)
    name = name or "sweep-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    if history is not None and any(s.label.startswith(f"{name}:") for s in history.list()):
        raise QdError(f"the history already holds a sweep named {name!r}: choose another --save name, or "
                      f"finish it with --resume {name}")
    others = [v for v in variants if v != default]
    n = max(1, min(len(engines), len(others)))
    lanes = [[Side(default, True)] + [Side(v, False) for v in others[i::n]] for i in range(n)]
    plan = Plan(name, rounds, per_round, warmup, seed, flush_l2, workloads)
    return _run(engines, lanes, plan, variants, default, history, on_progress, stop, on_note=on_note)


def resume(engines: Sequence[SweepEngine], history: History, name: str,
           on_progress: Callable[[int, int], None] | None = None,
           stop: threading.Event | None = None, on_note: Callable[[str], None] | None = None) -> SweepResult:
    """Measure the rounds a saved sweep lacks (it was stopped, interrupted or killed), on one
    engine per device that has some to do, appending to the same runs; the rest stay as saved (a
    lost device's runs too: their variants went on elsewhere)."""
    plan, lanes, variants, default = resume_lanes(history, name)
    todo = [sides for sides in lanes if any(lacking(s, plan.rounds) for s in sides)]
    if not todo:
        return _result(plan.name, variants, default, lanes)
    if len(engines) < len(todo):
        raise QdError(f"sweep {name!r} lacks rounds on {len(todo)} device(s); resuming it needs as many "
                      f"(--gpus {len(todo)})")
    reopen(history, todo, plan)
    notes: list[str] = []
    _run(engines, todo, plan, variants, default, history, on_progress, stop, begun=True, on_note=on_note, notes=notes)
    return _result(plan.name, variants, default, lanes, notes)


def _result(name: str, variants: list[Variant], default: Variant, lanes: list[list[Side]],
            notes: list[str] | None = None) -> SweepResult:
    result = SweepResult(name, variants, default)
    for sides in lanes:
        result.runs += [SweepRun(s.variant, s.device, s.run) for s in sides if s.begun or s.resumed]
    result.notes = list(dict.fromkeys([s.lost for sides in lanes for s in sides if s.lost] + (notes or [])))
    return result


def _run(engines: Sequence[SweepEngine], lanes: list[list[Side]], plan: Plan, variants: list[Variant],
         default: Variant, history: History | None, on_progress: Callable[[int, int], None] | None,
         stop: threading.Event | None, begun: bool = False, on_note: Callable[[str], None] | None = None,
         notes: list[str] | None = None) -> SweepResult:
    errors: dict[int, BaseException] = {}
    interrupted: BaseException | None = None
    gone: set[int] = set()
    notes = [] if notes is None else notes
    try:
        if not begun:
            begin(engines, lanes, plan, history)
        m = measure(engines, lanes, plan, history, on_progress, stop, on_note, notes)
        errors, interrupted, gone = m.errors, m.interrupted, m.gone
    except KeyboardInterrupt as e:   # while the runs were begun (a cluster's actors starting)
        interrupted = e
    with signals_held():   # a second Ctrl-C waits until every run has its final status
        if interrupted is None and errors and all(not s.have for sides in lanes for s in sides):
            finish(engines, lanes, plan, history, errors, None, gone)
            raise next(iter(errors.values()))   # nothing was measured: the error is the whole story
        finish(engines, lanes, plan, history, errors, interrupted, gone)
    if interrupted is not None:
        raise interrupted   # SIGTERM stays KeyboardInterrupt(15): the CLI exits 143, Ctrl-C 130
    return _result(plan.name, variants, default, lanes, notes)


def saved_sweeps(history: History) -> list[str]:
    """The names of the sweeps saved in `history`, oldest first."""
    names = (s.label.partition(":")[0] for s in history.list() if ":" in s.label and "@" in s.label)
    return list(dict.fromkeys(names))


def load_sweep(history: History, name: str) -> SweepResult:
    """A saved sweep read back from its runs (what the window's heat map and `sweep --show` use)."""
    runs = [history.load(s.id) for s in history.list() if s.label.startswith(f"{name}:")]
    runs = [r for r in runs if r.context.extra.get("sweep") == name]
    if not runs:
        raise QdError(f"no sweep named {name!r} in {history.path}")
    variants, default, members = group_runs(runs, name, history.path)
    result = SweepResult(name, variants, default)
    result.runs.extend(SweepRun(v, device, r) for v, device, r in members)
    result.notes = list(dict.fromkeys(str(r.context.extra["sweep_lost"]) for _, _, r in members
                                      if r.context.extra.get("sweep_lost")))
    return result
