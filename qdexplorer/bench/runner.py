"""Make runs with an Engine: warm-ups, timed repeats in rounds, context, and interleaved A/B rounds.

The engine is passed in, never imported (bench sits below the engine in the layers). A bench run
is made in *rounds*: its repeats are split into blocks spread over the run, the workloads taking
turns (round 1: w1 w2, round 2: w2 w1, …), each launch tagged with its round, so the statistics can
see the drift between blocks instead of mistaking it for a change. Each round drops its first
passes as warm-ups (module loading, page faults, caches left cold by the other workloads) and
keeps every timed launch; with a `RunWriter` each streamed batch is committed to the history as it
arrives, so a run that is stopped or killed keeps what it measured. A fresh A/B comparison
alternates the two sides round by round (A B A B …) so that drift (thermal, other processes,
clocks) hits both alike; each side keeps its modules compiled, so a swap only reloads the loaded
code, never recompiles it. On CUDA the clocks are sampled while the rounds run (`clocks`), after a
warm-up that waits for the SM clock to settle.
"""
from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..compiler.artifacts import CompiledTask
from ..events import Event, LaunchesTimed, TaskCompiled, WorkloadResult
from ..ir.errors import QdError
from ..runtime.launch import LaunchTiming
from .clock_lock import held as clocks_locked
from .clocks import ClockSampler, NvmlClocks, clock_summary, clock_warning, settled
from .context import collect
from .engine_api import BenchEngine
from .run import Launch, Run

WARMUP = 2
ROUNDS = 10            # a bench run's default rounds (fewer when it has fewer repeats)
SETTLE_LIMIT_S = 3.0   # CUDA warm-up: the longest wait for the SM clock to settle


def _launch(tm: LaunchTiming, workload: str, warmup: int, repeat_offset: int = 0, rnd: int | None = None) -> Launch:
    return Launch(tm.task, tm.kernel, workload, tm.repeat - warmup + repeat_offset, tm.ms, tm.grid, tm.block,
                  tm.cpu_ms, rnd)


def round_sizes(repeat: int, rounds: int | None) -> list[int]:
    """`repeat` timed passes split into `rounds` blocks as evenly as possible (the first ones one
    larger); `rounds` None: `ROUNDS`, or one a repeat when there are fewer repeats."""
    rounds = min(repeat, ROUNDS if rounds is None else rounds)
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    return [repeat // rounds + (1 if i < repeat % rounds else 0) for i in range(rounds)]


def _sampler(engine: BenchEngine) -> ClockSampler | contextlib.nullcontext:
    # NVML here reads this machine's GPU 0: not the one a Ray actor (another GPU or machine) runs on
    if engine.backend == "cuda" and not engine.cluster:
        read = NvmlClocks()
        if read.available:
            return ClockSampler(read)
    return contextlib.nullcontext()


def _settle(engine: BenchEngine, sampler: ClockSampler, workloads: list[str] | None, seed: int,
            flush_l2: bool) -> str:
    """Untimed passes until the busy SM clock settles or `SETTLE_LIMIT_S` passes; a note when it
    never settled. Nothing to do where no clock is sampled. The bench's first call of the engine:
    it forgets an old Stop; a Stop pressed now is kept for the rounds, which then end at once."""
    t0 = sampler.now()
    first = True
    while True:
        results = engine.run(workloads, repeat=1, seed=seed, flush_l2=flush_l2, keep_stop=not first)
        first = False
        state = settled(sampler.since(t0))
        if state or any(r.status in ("stopped", "error") for r in results):
            return ""
        if state is None and sampler.now() - t0 > 0.2:
            return ""  # never busy long enough to be sampled (microsecond kernels): nothing to settle
        if sampler.now() - t0 > SETTLE_LIMIT_S:
            return (f"the SM clock had not settled after {SETTLE_LIMIT_S:g} s of warm-up: the first rounds may "
                    f"run at another clock" if state is False else "")


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
               each: Callable[[list[Launch]], None] | None = None, rnd: int | None = None) -> Iterator[list[Launch]]:
    """The timed launches of the runs inside the block (passes from `warmup` on, renumbered from 0 +
    offset, tagged with round `rnd`), taken from the engine's events as they stream, and each
    task's compile record."""
    launches: list[Launch] = []

    def on(ev: Event) -> None:
        if isinstance(ev, LaunchesTimed):
            batch = [_launch(tm, ev.workload, warmup, repeat_offset, rnd) for tm in ev.timings
                     if tm.repeat >= warmup]
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
          seed: int = 0, name: str | None = None, history: Any = None, flush_l2: bool = True,
          rounds: int | None = None, on_round: Callable[[int, int], None] | None = None, settle: bool = True) -> Run:
    """Run `workloads` (default: all) for `repeat` timed passes in `rounds` blocks (default
    `ROUNDS`), the workloads taking turns; each block starts with untimed passes (`warmup` in the
    first, 1 in the others, for the caches the other workloads left cold).

    `flush_l2` (default on, as runs are made to be compared, and as Nsight Compute does) evicts
    the GPU's L2 before every launch, so a task never inherits the previous one's cached data.

    `settle` False skips the CUDA warm-up that waits for the SM clock to settle: for a caller that
    has kept the GPU busy with runs up to now (a calibration making one run after another).

    With `history` (a bench.history.History), the run is saved as it streams: a row marked
    running at the start, each batch of launches committed as it arrives, the status at the end.
    """
    if repeat < 1 or warmup < 0:
        raise ValueError("repeat must be at least 1 and warmup at least 0")
    sizes = round_sizes(repeat, rounds)
    names = list(workloads or engine.project.workloads)
    for n in names:   # an unknown name fails here, before a run row is written (it left empty failed runs)
        engine.project.workload(n)
    every = list(names)
    compiles: dict[str, dict[str, Any]] = {}
    # the context is recorded at the start: a stopped or killed run keeps device, arch and mode
    writer = history.begin(Run(name, collect(engine, (), workloads=names, warmup=warmup, repeat=repeat, seed=seed,
                                             streaming=True))) if history else None
    launches: list[Launch] = []
    results: dict[str, WorkloadResult] = {}
    notes: list[str] = []
    sampler = _sampler(engine)
    try:
        with sampler:
            settled_first = isinstance(sampler, ClockSampler) and settle
            if settled_first and isinstance(sampler, ClockSampler):
                notes.append(_settle(engine, sampler, names or None, seed, flush_l2))
            done = 0
            for rnd, size in enumerate(sizes):
                turn = names[rnd % len(names):] + names[:rnd % len(names)] if names else None
                warm = warmup if rnd == 0 else min(warmup, 1)
                with contextlib.ExitStack() as stack:
                    if isinstance(sampler, ClockSampler):
                        stack.enter_context(sampler.timing(rnd))
                    got = stack.enter_context(_measuring(engine, warm, compiles, done, writer.add if writer else None,
                                                         rnd))
                    # warm-ups as the first passes, dropped here: the engine checks the first pass against
                    # the inputs it built, which in-place workloads (a particle step) only match before
                    # any warm-up has run
                    # only the bench's first call forgets an earlier Stop: one pressed between rounds
                    # (or during the clock's warm-up) ends the run instead of being cleared by the next
                    out = engine.run(turn, repeat=warm + size, seed=seed, flush_l2=flush_l2,
                                     keep_stop=rnd > 0 or settled_first)
                launches += got
                for r in out:  # the first problem of each workload is the one reported
                    if r.workload not in results or results[r.workload].status == "passed":
                        results[r.workload] = r
                    if r.status in ("error", "skipped") and r.workload in names:
                        names.remove(r.workload)  # it will not run in a later round either
                done += size
                if on_round:
                    on_round(rnd + 1, len(sizes))
                if any(r.status == "stopped" for r in out) or not names:
                    break
    except KeyboardInterrupt:
        if writer:
            writer.finish("stopped", "interrupted (Ctrl-C): the launches measured until then are kept")
        raise
    except BaseException as e:
        if writer:
            writer.finish("failed", f"{type(e).__name__}: {e}")
        raise
    samples = sampler.samples if isinstance(sampler, ClockSampler) else []
    tasks = list(dict.fromkeys(ln.task for ln in launches))
    ordered = [results[n] for n in every if n in results] or list(results.values())
    ctx = collect(engine, _compiled_for(engine, tasks), workloads=[r.workload for r in ordered],
                  warmup=warmup, repeat=repeat, rounds=len(sizes), per_round=max(sizes), seed=seed,
                  clocks_mhz=clock_summary(samples) | clocks_locked(), l2_flush=flush_l2 and engine.backend == "cuda",
                  skipped={r.workload: r.skipped for r in ordered if r.skipped})
    status = _status(ordered)
    notes += [clock_warning(samples)]
    message = "; ".join(_problems(ordered) + (["stopped: the timings are what was measured until then"]
                                              if status == "stopped" else []) + [n for n in notes if n])
    compiled = {t: compiles[t] for t in tasks if t in compiles}
    if writer is None:
        return Run(name, ctx, launches, compiled, status, message)
    writer.add_compile(compiled)
    return writer.finish(status, message, ctx)


def add_rounds(engine: BenchEngine, history: Any, ref: str | int, rounds: int) -> Run:
    """`rounds` more rounds of a saved run, measured now and added to it: what an `unsure` verdict asks
    for ("about N more rounds a side would settle it"). Only the same code may be added to: every task's
    loaded code must hash as it did (else the error says so: bench a new run). The run's workloads,
    repeats per round, warm-ups, seed and L2 flush are reused; the new rounds are numbered after its own."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    run = history.load(ref)
    ctx = run.context
    if ctx.pair or ctx.interleaved_with:
        raise QdError(f"run {run.label} is one side of an interleaved comparison: its rounds were paired with the "
                      f"other side's; compare fresh sides again with more --rounds instead")
    if ctx.backend and ctx.backend != engine.backend:
        raise QdError(f"run {run.label} was measured on {ctx.backend}, not {engine.backend}: add rounds on the same "
                      f"backend")
    made = max(1, ctx.rounds or len({ln.round for ln in run.launches}) or 1)
    per = max(1, (ctx.repeat or max((ln.repeat for ln in run.launches), default=0) + 1) // made)
    extra = bench(engine, ctx.workloads or None, repeat=rounds * per, warmup=ctx.warmup, seed=ctx.seed,
                  flush_l2=ctx.l2_flush, rounds=rounds)
    if extra.status != "complete":
        raise QdError(f"the added rounds did not complete ({extra.status}: {extra.message}); {run.label} is unchanged")
    changed = sorted(t for t, h in extra.context.tasks.items()
                     if t in ctx.tasks and h.get("loaded_sha256") != ctx.tasks[t].get("loaded_sha256"))
    if changed:
        raise QdError(f"the code of {', '.join(changed[:3])} changed since {run.label} was measured: rounds of other "
                      f"code cannot be added to it; bench a new run (Bench & save) and compare that")
    first_round = max((ln.round for ln in run.launches if ln.round is not None), default=made - 1) + 1
    first_repeat = max((ln.repeat for ln in run.launches), default=-1) + 1
    added = [Launch(ln.task, ln.kernel, ln.workload, ln.repeat + first_repeat, ln.ms, ln.grid, ln.block, ln.cpu_ms,
                    None if ln.round is None else ln.round + first_round) for ln in extra.launches]
    new_ctx = type(ctx).from_dict(ctx.to_dict() | {"rounds": made + rounds, "repeat": (ctx.repeat or made * per)
                                                   + rounds * per})
    note = f"{rounds} round{'s' if rounds != 1 else ''} added later ({rounds * per} repeats)"
    return history.append_rounds(run, added, new_ctx, note)


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
    """A B, B A, A B … for `rounds` rounds of `per_round` timed repeats each (after `warmup` per swap): the
    side that goes first alternates, so what going first or second does to a launch (seen on the CPU: a 3 µs
    serial task 1.39x slower second in every round of an A/A, a false `slower`) falls on both sides alike.
    The two runs share a `pair` token: their rounds are compared one to one."""
    if rounds < 1 or per_round < 1:
        raise ValueError("rounds and per_round must be at least 1")
    pair = uuid.uuid4().hex[:12]
    for side in (a, b):
        side.run, side.compile = Run(side.label, status="complete"), {}
    samplers: dict[str, Any] = {}
    for side in (a, b):
        samplers.setdefault(side.engine.backend, _sampler(side.engine))
    problems: dict[str, list[str]] = {a.label: [], b.label: []}
    stopped = False
    started: set[int] = set()   # engines called once already: only an engine's first call forgets an old Stop
    with contextlib.ExitStack() as stack:
        for sm in samplers.values():
            stack.enter_context(sm)
        for rnd in range(rounds):
            for side in ((a, b) if rnd % 2 == 0 else (b, a)):
                sampler = samplers[side.engine.backend]
                with side.engine.variant(**side.variant), contextlib.ExitStack() as timing:
                    if isinstance(sampler, ClockSampler):
                        timing.enter_context(sampler.timing(rnd))
                    launches = timing.enter_context(_measuring(side.engine, warmup, side.compile,
                                                               repeat_offset=rnd * per_round, rnd=rnd))
                    results = side.engine.run(workloads, repeat=warmup + per_round, seed=seed, flush_l2=flush_l2,
                                              keep_stop=id(side.engine) in started)
                    started.add(id(side.engine))   # its later calls keep a Stop pressed between them
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
        sampler = samplers[eng.backend]
        samples = sampler.samples if isinstance(sampler, ClockSampler) else []
        warn = clock_warning(samples)
        tasks = set(side.run.tasks())
        with eng.variant(**side.variant):  # the context describes the side's own state (its compile mode, say)
            side.run.context = collect(eng, side.compiled, workloads=side.workloads, warmup=warmup,
                                       repeat=rounds * per_round, rounds=rounds, per_round=per_round, seed=seed,
                                       interleaved_with=(b if side is a else a).label, pair=pair,
                                       l2_flush=flush_l2 and eng.backend == "cuda",
                                       clocks_mhz=clock_summary(samples) | clocks_locked())
        side.run.compile = {t: v for t, v in side.compile.items() if t in tasks}
        msgs = problems[side.label] + ([warn] if warn else [])
        side.run.status = "failed" if problems[side.label] else ("stopped" if stopped else "complete")
        side.run.message = "; ".join(msgs)
    return a.run, b.run
