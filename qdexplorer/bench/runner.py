"""Make runs with an Engine: warm-ups, timed repeats, context, and interleaved A/B rounds.

A bench run drops its warm-up repeats (first-launch costs: module loading, page faults, cold
caches) and keeps every timed launch. A fresh A/B comparison alternates the two sides round by
round (A B A B …) so that drift (thermal, other processes, clocks) hits both alike; each side
keeps its modules compiled, so a swap only reloads the loaded code, never recompiles it.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Callable

from ..events import CompileEvent
from .clocks import clock_warning, sm_clock_mhz
from .context import collect
from .run import Launch, Run

WARMUP = 2


def _launches(results, warmup: int, repeat_offset: int = 0) -> list[Launch]:
    out = []
    for r in results:
        for tm in r.timings:
            if tm.repeat >= warmup:
                out.append(Launch(tm.task, tm.kernel, r.workload, tm.repeat - warmup + repeat_offset, tm.ms,
                                  tm.grid, tm.block, getattr(tm, "cpu_ms", None)))
    return out


def _problems(results) -> list[str]:
    msgs = []
    for r in results:
        if r.status in ("error", "failed"):
            msgs.append(f"{r.workload}: {r.error or r.check_error}")
    return msgs


def _compiled_for(engine, tasks) -> list:
    """The CompiledTasks that `engine` last loaded for `tasks` (for their hashes)."""
    target = {"cpu": "host", "cuda": "nvptx"}[engine.backend]
    wanted = set(tasks)
    return [ct for key, ct in engine.compiled.items() if ct.task in wanted and key.startswith(f"{target}:")]


@contextlib.contextmanager
def _recording_compiles(engine, into: dict):
    def on(ev):
        if isinstance(ev, CompileEvent):
            d = {k: float(v) for k, v in ev.seconds.items()}
            d["tier"] = ev.tier
            into[ev.task] = d
    engine.on(on)
    try:
        yield
    finally:
        if on in engine.listeners:
            engine.listeners.remove(on)


def bench(engine, workloads: list[str] | None = None, repeat: int = 20, warmup: int = WARMUP, seed: int = 0,
          name: str | None = None) -> Run:
    """Run `workloads` (default: all) `warmup + repeat` times; a Run of the timed repeats."""
    if repeat < 1 or warmup < 0:
        raise ValueError("repeat must be at least 1 and warmup at least 0")
    compile_: dict = {}
    clock0 = sm_clock_mhz() if engine.backend == "cuda" else None
    with _recording_compiles(engine, compile_):
        results = engine.run(workloads, repeat=warmup + repeat, seed=seed)
    clock1 = sm_clock_mhz() if engine.backend == "cuda" else None
    launches = _launches(results, warmup)
    tasks = list(dict.fromkeys(ln.task for ln in launches))
    ctx = collect(engine, _compiled_for(engine, tasks), workloads=[r.workload for r in results],
                  warmup=warmup, repeat=repeat, seed=seed, clocks_mhz={"before": clock0, "after": clock1},
                  skipped={r.workload: r.skipped for r in results if r.skipped})
    problems = _problems(results)
    warn = clock_warning(clock0, clock1)
    status = "failed" if problems else "complete"
    return Run(name, ctx, launches, {t: compile_[t] for t in tasks if t in compile_}, status,
               "; ".join(problems + ([warn] if warn else [])))


@dataclass
class Side:
    """One side of a fresh comparison: an engine, and how to put it into this side's state."""
    label: str
    engine: object
    enter: Callable[[], None] = lambda: None
    leave: Callable[[], None] = lambda: None
    run: Run | None = None
    compile: dict = field(default_factory=dict)
    compiled: list = field(default_factory=list)
    workloads: list = field(default_factory=list)


def interleaved(a: Side, b: Side, workloads: list[str] | None = None, rounds: int = 10, per_round: int = 5,
                warmup: int = 1, seed: int = 0, on_round: Callable[[int, int], None] | None = None) -> tuple[Run, Run]:
    """A B A B … for `rounds` rounds of `per_round` timed repeats each (after `warmup` per swap)."""
    if rounds < 1 or per_round < 1:
        raise ValueError("rounds and per_round must be at least 1")
    for side in (a, b):
        side.run, side.compile = Run(side.label, status="complete"), {}
    clocks = {}
    for side in (a, b):
        clocks.setdefault(side.engine.backend, sm_clock_mhz() if side.engine.backend == "cuda" else None)
    problems: dict[str, list[str]] = {a.label: [], b.label: []}
    for rnd in range(rounds):
        for side in (a, b):
            side.enter()
            try:
                with _recording_compiles(side.engine, side.compile):
                    results = side.engine.run(workloads, repeat=warmup + per_round, seed=seed)
            finally:
                side.leave()
            side.run.launches += _launches(results, warmup, repeat_offset=rnd * per_round)
            problems[side.label] += [p for p in _problems(results) if p not in problems[side.label]]
            if rnd == 0:
                side.compiled = _compiled_for(side.engine, [ln.task for ln in side.run.launches])
                side.workloads = [r.workload for r in results]
        if on_round:
            on_round(rnd + 1, rounds)
    for side in (a, b):
        eng = side.engine
        after = sm_clock_mhz() if eng.backend == "cuda" else None
        warn = clock_warning(clocks.get(eng.backend), after)
        tasks = set(side.run.tasks())
        side.run.context = collect(eng, side.compiled, workloads=side.workloads, warmup=warmup,
                                   repeat=rounds * per_round, rounds=rounds, per_round=per_round, seed=seed,
                                   interleaved_with=(b if side is a else a).label,
                                   clocks_mhz={"before": clocks.get(eng.backend), "after": after})
        side.run.compile = {t: v for t, v in side.compile.items() if t in tasks}
        msgs = problems[side.label] + ([warn] if warn else [])
        side.run.status = "failed" if problems[side.label] else "complete"
        side.run.message = "; ".join(msgs)
    return a.run, b.run


def without_override(engine, task: str | None = None) -> tuple[Callable, Callable]:
    """enter/leave callables that hide the project's overrides (all, or one task's) from `engine`."""
    from ..compiler.overrides import OverrideStore
    saved = {}

    class _Hidden(OverrideStore):
        def __init__(self, inner):
            self.inner = inner
            self.folder, self.load_dir = inner.folder, inner.load_dir

        def get(self, t):
            return None if task is None or t == task else self.inner.get(t)

    def enter():
        saved["store"] = engine.service.overrides
        engine.service.overrides = _Hidden(saved["store"])

    def leave():
        engine.service.overrides = saved.pop("store")
    return enter, leave


def with_mode(engine, mode: str) -> tuple[Callable, Callable]:
    """enter/leave callables that compile `engine`'s tasks per_task or whole-module."""
    saved = {}

    def enter():
        saved["mode"] = engine.service.mode
        engine.service.mode = mode

    def leave():
        engine.service.mode = saved.pop("mode")
    return enter, leave
