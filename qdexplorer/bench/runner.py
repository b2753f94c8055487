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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..compiler.artifacts import CompiledTask
from ..events import Event, LaunchesTimed, TaskCompiled, WorkloadResult
from ..runtime.launch import LaunchTiming
from .clocks import clock_warning, sm_clock_mhz
from .context import RunContext, collect
from .engine_api import BenchEngine
from .run import Launch, Run

WARMUP = 2


def _launch(tm: LaunchTiming, workload: str, warmup: int, repeat_offset: int = 0) -> Launch:
    return Launch(tm.task, tm.kernel, workload, tm.repeat - warmup + repeat_offset, tm.ms, tm.grid, tm.block,
                  tm.cpu_ms)


def _status(results: list[WorkloadResult]) -> str:
    if any(r.status == "stopped" for r in results):
        return "stopped"
    return "failed" if _problems(results) else "complete"


def _problems(results: list[WorkloadResult]) -> list[str]:
    return [f"{r.workload}: {r.error or r.check_error}" for r in results if r.status in ("error", "failed")]


def _compiled_for(engine: BenchEngine, tasks: list[str]) -> list[CompiledTask]:
    """The CompiledTasks that `engine` last loaded for `tasks` (for their hashes)."""
    found = (engine.compiled_for(t) for t in dict.fromkeys(tasks))
    return [ct for ct in found if ct is not None]


@contextlib.contextmanager
def _listening(engine: BenchEngine, fn: Callable[[Event], None]) -> Iterator[None]:
    stop = engine.subscribe(fn)
    try:
        yield
    finally:
        stop()


@contextlib.contextmanager
def _measuring(engine: BenchEngine, warmup: int, compiles: dict[str, dict[str, Any]], repeat_offset: int = 0,
               each: Callable[[list[Launch]], None] | None = None) -> Iterator[list[Launch]]:
    """The timed launches of the runs inside the block (passes from `warmup` on, renumbered from 0 +
    offset), taken from the engine's events as they stream, and each task's compile record."""
    launches: list[Launch] = []

    def on(ev: Event) -> None:
        if isinstance(ev, LaunchesTimed):
            batch = [_launch(tm, ev.workload, warmup, repeat_offset) for tm in ev.timings if tm.repeat >= warmup]
            launches.extend(batch)
            if each is not None and batch:
                each(batch)
        elif isinstance(ev, TaskCompiled):
            d: dict[str, Any] = {k: float(v) for k, v in ev.compiled.seconds.items()}
            d["tier"] = ev.compiled.tier
            compiles[ev.task] = d
    with _listening(engine, on):
        yield launches


def bench(engine: BenchEngine, workloads: list[str] | None = None, repeat: int = 20, warmup: int = WARMUP,
          seed: int = 0, name: str | None = None, history: Any = None, flush_l2: bool = True) -> Run:
    """Run `workloads` (default: all) with `warmup` untimed and `repeat` timed passes.

    `flush_l2` (default on, as runs are made to be compared, and as Nsight Compute does) evicts
    the GPU's L2 before every launch, so a task never inherits the previous one's cached data.

    With `history` (a bench.history.History), the run is saved as it streams: a row marked
    running at the start, each batch of launches committed as it arrives, the status at the end.
    """
    if repeat < 1 or warmup < 0:
        raise ValueError("repeat must be at least 1 and warmup at least 0")
    compiles: dict[str, dict[str, Any]] = {}
    writer = history.begin(Run(name, RunContext(backend=engine.backend, streaming=True))) if history else None
    clock0 = sm_clock_mhz() if engine.backend == "cuda" else None
    try:
        with _measuring(engine, warmup, compiles, each=writer.add if writer else None) as launches:
            # warm-ups as the first passes, dropped here: the engine checks the first pass against
            # the inputs it built, which in-place workloads (a particle step) only match before
            # any warm-up has run
            results = engine.run(workloads, repeat=warmup + repeat, seed=seed, flush_l2=flush_l2)
    except KeyboardInterrupt:
        if writer:
            writer.finish("stopped", "interrupted (Ctrl-C): the launches measured until then are kept")
        raise
    except BaseException as e:
        if writer:
            writer.finish("failed", f"{type(e).__name__}: {e}")
        raise
    clock1 = sm_clock_mhz() if engine.backend == "cuda" else None
    tasks = list(dict.fromkeys(ln.task for ln in launches))
    ctx = collect(engine, _compiled_for(engine, tasks), workloads=[r.workload for r in results],
                  warmup=warmup, repeat=repeat, seed=seed, clocks_mhz={"before": clock0, "after": clock1},
                  l2_flush=flush_l2 and engine.backend == "cuda",
                  skipped={r.workload: r.skipped for r in results if r.skipped})
    warn = clock_warning(clock0, clock1)
    status = _status(results)
    message = "; ".join(_problems(results) + (["stopped: the timings are what was measured until then"]
                                              if status == "stopped" else []) + ([warn] if warn else []))
    compiled = {t: compiles[t] for t in tasks if t in compiles}
    if writer is None:
        return Run(name, ctx, launches, compiled, status, message)
    writer.add_compile(compiled)
    return writer.finish(status, message, ctx)


@dataclass
class Side:
    """One side of a fresh comparison: an engine, and the variant of the project it runs
    (`Engine.variant` keywords: hide_overrides=True or a task name, mode='whole'...)."""
    label: str
    engine: BenchEngine
    variant: dict[str, Any] = field(default_factory=dict)
    run: Run = field(default_factory=Run)
    compile: dict[str, dict[str, Any]] = field(default_factory=dict)
    compiled: list[CompiledTask] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)


def interleaved(a: Side, b: Side, workloads: list[str] | None = None, rounds: int = 10, per_round: int = 5,
                warmup: int = 1, seed: int = 0, on_round: Callable[[int, int], None] | None = None,
                flush_l2: bool = True) -> tuple[Run, Run]:
    """A B A B … for `rounds` rounds of `per_round` timed repeats each (after `warmup` per swap)."""
    if rounds < 1 or per_round < 1:
        raise ValueError("rounds and per_round must be at least 1")
    for side in (a, b):
        side.run, side.compile = Run(side.label, status="complete"), {}
    clocks: dict[str, float | None] = {}
    for side in (a, b):
        clocks.setdefault(side.engine.backend, sm_clock_mhz() if side.engine.backend == "cuda" else None)
    problems: dict[str, list[str]] = {a.label: [], b.label: []}
    stopped = False
    for rnd in range(rounds):
        for side in (a, b):
            with side.engine.variant(**side.variant), \
                    _measuring(side.engine, warmup, side.compile, repeat_offset=rnd * per_round) as launches:
                results = side.engine.run(workloads, repeat=warmup + per_round, seed=seed, flush_l2=flush_l2)
                if rnd == 0:
                    side.compiled = _compiled_for(side.engine, [ln.task for ln in launches])
            side.run.launches += launches
            stopped = stopped or any(r.status == "stopped" for r in results)
            problems[side.label] += [p for p in _problems(results) if p not in problems[side.label]]
            if rnd == 0:
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
        with eng.variant(**side.variant):  # the context describes the side's own state (its compile mode, say)
            side.run.context = collect(eng, side.compiled, workloads=side.workloads, warmup=warmup,
                                       repeat=rounds * per_round, rounds=rounds, per_round=per_round, seed=seed,
                                       interleaved_with=(b if side is a else a).label,
                                       l2_flush=flush_l2 and eng.backend == "cuda",
                                       clocks_mhz={"before": clocks.get(eng.backend), "after": after})
        side.run.compile = {t: v for t, v in side.compile.items() if t in tasks}
        msgs = problems[side.label] + ([warn] if warn else [])
        side.run.status = "failed" if problems[side.label] else ("stopped" if stopped else "complete")
        side.run.message = "; ".join(msgs)
    return a.run, b.run
