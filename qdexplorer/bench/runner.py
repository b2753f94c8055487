"""Make runs with an Engine: warm-ups, timed repeats, context, and interleaved A/B rounds.

The engine is passed in, never imported (bench sits below the engine in the layers). A bench
run drops its first passes as warm-ups (module loading, page faults, cold caches) and
keeps every timed launch; with a `RunWriter` each streamed batch is committed to the history
as it arrives, so a run that is stopped or killed keeps what it measured. A fresh A/B comparison alternates the two sides round by
round (A B A B …) so that drift (thermal, other processes, clocks) hits both alike; each side
keeps its modules compiled, so a swap only reloads the loaded code, never recompiles it.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Callable

from ..events import LaunchesTimed, TaskCompiled
from .clocks import clock_warning, sm_clock_mhz
from .context import collect
from .run import Launch, Run

WARMUP = 2


def _launch(tm, workload: str, warmup: int, repeat_offset: int = 0) -> Launch:
    return Launch(tm.task, tm.kernel, workload, tm.repeat - warmup + repeat_offset, tm.ms, tm.grid, tm.block,
                  getattr(tm, "cpu_ms", None))


def _launches(results, warmup: int, repeat_offset: int = 0) -> list[Launch]:
    """The timed launches: passes from `warmup` on, renumbered from 0 (+ offset)."""
    return [_launch(tm, r.workload, warmup, repeat_offset) for r in results for tm in r.timings
            if tm.repeat >= warmup]


def _status(results) -> str:
    if any(r.status == "stopped" for r in results):
        return "stopped"
    return "failed" if _problems(results) else "complete"


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
def _flushing(engine, on: bool):
    saved = engine.flush_l2
    engine.flush_l2 = on
    try:
        yield
    finally:
        engine.flush_l2 = saved


@contextlib.contextmanager
def _listening(engine, fn):
    engine.on(fn)
    try:
        yield
    finally:
        if fn in engine.listeners:
            engine.listeners.remove(fn)


@contextlib.contextmanager
def _recording_compiles(engine, into: dict):
    def on(ev):
        if isinstance(ev, TaskCompiled):
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
          name: str | None = None, history=None, flush_l2: bool = True) -> Run:
    """Run `workloads` (default: all) with `warmup` untimed and `repeat` timed passes.

    `flush_l2` (default on, as runs are made to be compared, and as Nsight Compute does) evicts
    the GPU's L2 before every launch, so a task never inherits the previous one's cached data.

    With `history` (a bench.history.History), the run is saved as it streams: a row marked
    running at the start, each batch of launches committed as it arrives, the status at the end.
    """
    if repeat < 1 or warmup < 0:
        raise ValueError("repeat must be at least 1 and warmup at least 0")
    compile_: dict = {}
    writer = None
    if history:  # the context is recorded at the start: a stopped or killed run keeps device, arch and mode
        writer = history.begin(Run(name, collect(engine, (), workloads=workloads, warmup=warmup, repeat=repeat,
                                                 seed=seed, streaming=True)))

    def on(ev):
        if isinstance(ev, LaunchesTimed):
            writer.add([_launch(tm, ev.workload, warmup) for tm in ev.timings if tm.repeat >= warmup])
    clock0 = sm_clock_mhz() if engine.backend == "cuda" else None
    try:
        with _recording_compiles(engine, compile_), _listening(engine, on if writer else (lambda ev: None)), \
                _flushing(engine, flush_l2):
            # warm-ups as the first passes, dropped here: the engine checks the first pass against
            # the inputs it built, which in-place workloads (a particle step) only match before
            # any warm-up has run
            results = engine.run(workloads, repeat=warmup + repeat, seed=seed)
    except KeyboardInterrupt:
        if writer:
            writer.finish("stopped", "interrupted (Ctrl-C): the launches measured until then are kept")
        raise
    except BaseException as e:
        if writer:
            writer.finish("failed", f"{type(e).__name__}: {e}")
        raise
    clock1 = sm_clock_mhz() if engine.backend == "cuda" else None
    launches = _launches(results, warmup)
    tasks = list(dict.fromkeys(ln.task for ln in launches))
    ctx = collect(engine, _compiled_for(engine, tasks), workloads=[r.workload for r in results],
                  warmup=warmup, repeat=repeat, seed=seed, clocks_mhz={"before": clock0, "after": clock1},
                  l2_flush=flush_l2 and engine.backend == "cuda",
                  skipped={r.workload: r.skipped for r in results if r.skipped})
    warn = clock_warning(clock0, clock1)
    status = _status(results)
    message = "; ".join(_problems(results) + (["stopped: the timings are what was measured until then"]
                                              if status == "stopped" else []) + ([warn] if warn else []))
    compiled = {t: compile_[t] for t in tasks if t in compile_}
    if writer is None:
        return Run(name, ctx, launches, compiled, status, message)
    writer.add_compile(compiled)
    return writer.finish(status, message, ctx)


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
                warmup: int = 1, seed: int = 0, on_round: Callable[[int, int], None] | None = None,
                flush_l2: bool = True) -> tuple[Run, Run]:
    """A B A B … for `rounds` rounds of `per_round` timed repeats each (after `warmup` per swap)."""
    if rounds < 1 or per_round < 1:
        raise ValueError("rounds and per_round must be at least 1")
    for side in (a, b):
        side.run, side.compile = Run(side.label, status="complete"), {}
    clocks = {}
    for side in (a, b):
        clocks.setdefault(side.engine.backend, sm_clock_mhz() if side.engine.backend == "cuda" else None)
    problems: dict[str, list[str]] = {a.label: [], b.label: []}
    stopped = False
    for rnd in range(rounds):
        for side in (a, b):
            side.enter()
            try:
                with _recording_compiles(side.engine, side.compile), _flushing(side.engine, flush_l2):
                    results = side.engine.run(workloads, repeat=warmup + per_round, seed=seed)
            finally:
                side.leave()
            side.run.launches += _launches(results, warmup, repeat_offset=rnd * per_round)
            stopped = stopped or any(r.status == "stopped" for r in results)
            problems[side.label] += [p for p in _problems(results) if p not in problems[side.label]]
            if rnd == 0:
                side.compiled = _compiled_for(side.engine, [ln.task for ln in side.run.launches])
                side.workloads = [r.workload for r in results]
        if on_round:
            on_round(rnd + 1, rounds)
        if stopped:
            break
    for side in (a, b):
        eng = side.engine
        after = sm_clock_mhz() if eng.backend == "cuda" else None
        warn = clock_warning(clocks.get(eng.backend), after)
        tasks = set(side.run.tasks())
        side.enter()  # the context describes the side's own state (its compile mode, say)
        try:
            side.run.context = collect(eng, side.compiled, workloads=side.workloads, warmup=warmup,
                                       repeat=rounds * per_round, rounds=rounds, per_round=per_round, seed=seed,
                                       interleaved_with=(b if side is a else a).label,
                                       l2_flush=flush_l2 and eng.backend == "cuda",
                                       clocks_mhz={"before": clocks.get(eng.backend), "after": after})
        finally:
            side.leave()
        side.run.compile = {t: v for t, v in side.compile.items() if t in tasks}
        msgs = problems[side.label] + ([warn] if warn else [])
        side.run.status = "failed" if problems[side.label] else ("stopped" if stopped else "complete")
        side.run.message = "; ".join(msgs)
    return a.run, b.run


class _HiddenOverrides:
    """An override store that hides the overrides of `task` (or all of them) from the pipeline."""

    def __init__(self, inner, task: str | None):
        self.inner, self.task = inner, task

    def get(self, name: str, kind: str = "ptx"):
        return None if self.task is None or name == self.task else self.inner.get(name, kind)

    def __getattr__(self, attr):
        return getattr(self.inner, attr)


def without_override(engine, task: str | None = None) -> tuple[Callable, Callable]:
    """enter/leave callables that hide the project's overrides (all, or one task's) from `engine`.

    The generated side compiles to the cached artifacts (no codegen, no PTX generation); the
    device only swaps which module is loaded.
    """
    saved = {}

    def enter():
        saved["store"] = engine.pipeline.overrides
        engine.pipeline.overrides = _HiddenOverrides(saved["store"], task)

    def leave():
        engine.pipeline.overrides = saved.pop("store")
    return enter, leave


def with_mode(engine, mode: str) -> tuple[Callable, Callable]:
    """enter/leave callables that compile `engine`'s tasks per_task or whole-module."""
    saved = {}

    def enter():
        saved["mode"] = engine.pipeline.mode
        engine.pipeline.mode = mode

    def leave():
        engine.pipeline.mode = saved.pop("mode")
    return enter, leave
