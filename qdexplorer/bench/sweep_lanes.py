"""How a sweep runs on its devices and is saved while it runs (bench/sweep.py holds what a sweep is).

Every (variant, device) run is begun in the history before the first launch, with the sweep's plan
in its context (`sweep_plan`: rounds, repeats, warm-ups, seed, workloads, flush), and gains each
turn's launches in one transaction as the turn ends: a sweep killed at any point (SIGKILL too)
keeps every finished turn, and its runs read back as `interrupted`. Only the calling thread
touches the history (SQLite connections belong to their thread): the device threads hand finished
turns over through a queue. A turn cut short by a stop is dropped, since rounds pair whole turns;
`resume` reads a sweep's runs back and measures only the rounds each one lacks, on the same runs.
"""
from __future__ import annotations

import queue
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..checked import Bool, Int, Invalid, List, Obj, Opt, Str, check
from ..events import Event, LaunchesTimed, TaskCompiled, WorkloadResult
from ..ir.errors import QdError
from ..numbers import MAX_COUNT, MAX_SEED
from .context import collect
from .history import History, RunWriter
from .run import Launch, Run

if TYPE_CHECKING:
    from .sweep_variant import SweepEngine, Variant

PLAN = Obj(rounds=Int(1, MAX_COUNT), per_round=Int(1, MAX_COUNT), warmup=Int(0, MAX_COUNT), seed=Int(0, MAX_SEED),
           flush_l2=Bool(), workloads=Opt(List(Str(), max_len=10000)))


def complete(have: set[int], rounds: int) -> bool:
    """Every round of `rounds` measured: counted in what was measured (never a set of every round:
    a plan of a billion rounds would build one)."""
    return sum(1 for r in have if 0 <= r < rounds) >= rounds


JOIN_S = 10.0   # after Ctrl-C or SIGTERM: how long the device threads get to finish their launch


@dataclass
class Plan:
    """What every run of one sweep shares, saved in each run's context to be resumed from."""
    name: str
    rounds: int
    per_round: int
    warmup: int
    seed: int
    flush_l2: bool
    workloads: list[str] | None

    def to_dict(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "per_round": self.per_round, "warmup": self.warmup, "seed": self.seed,
                "flush_l2": self.flush_l2, "workloads": self.workloads}


@dataclass
class Side:
    variant: Variant
    default: bool
    run: Run = field(default_factory=Run)
    compile: dict[str, dict[str, Any]] = field(default_factory=dict)
    compiled: list[Any] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    have: set[int] = field(default_factory=set)   # rounds whose turn is measured (and saved)
    writer: RunWriter | None = None
    device: str = ""
    resumed: bool = False
    begun: bool = False           # its run has a name (and a row, with a history)


def device_name(run: Run, lane: int, lanes: int) -> str:
    """Where a run was made, short enough for a run's name: HOST/gpuN on a cluster's GPU, HOST/K
    for the K-th CPU actor, else the lane (a local engine)."""
    where = run.context.extra.get("placement") or {}
    if where.get("gpu") is not None:
        return f"{where.get('host')}/gpu{where['gpu']}"
    if where.get("host"):
        return f"{where['host']}/{lane}" if lanes > 1 else str(where["host"])
    return f"lane{lane}" if lanes > 1 else "local"


def _note(side: Side, results: list[WorkloadResult]) -> None:
    for r in results:
        if r.workload not in side.workloads:
            side.workloads.append(r.workload)
        if r.skipped:
            side.skipped[r.workload] = r.skipped
        if r.status in ("error", "failed"):
            msg = f"{r.workload}: {r.error or r.check_error}"
            if msg not in side.problems:
                side.problems.append(msg)


Turn = tuple[Side, list[Launch]]


def _lane(engine: SweepEngine, sides: list[Side], plan: Plan, halt: threading.Event, turns: queue.Queue[Turn],
          tick: Callable[[], None]) -> None:
    """One device's rounds: each round runs every side that lacks it once, in an order rotated by
    the round; each finished turn goes to `turns`."""
    warmup, per_round = plan.warmup, plan.per_round
    for rnd in range(plan.rounds):
        order = sides[rnd % len(sides):] + sides[:rnd % len(sides)]
        for side in order:
            if rnd in side.have:
                continue
            if halt.is_set():
                return
            got: list[Launch] = []

            def on(ev: Event, side: Side = side, got: list[Launch] = got, rnd: int = rnd) -> None:
                if isinstance(ev, LaunchesTimed):
                    got.extend(Launch(tm.task, tm.kernel, ev.workload, tm.repeat - warmup + rnd * per_round, tm.ms,
                                      tm.grid, tm.block, tm.cpu_ms, rnd) for tm in ev.timings if tm.repeat >= warmup)
                elif isinstance(ev, TaskCompiled):
                    side.compile[ev.task] = {k: float(v) for k, v in ev.compiled.seconds.items()} | {
                        "tier": ev.compiled.tier}
            with engine.variant(**side.variant.kwargs()):
                unsubscribe = engine.subscribe(on)
                try:
                    results = engine.run(plan.workloads, repeat=warmup + per_round, seed=plan.seed,
                                         flush_l2=plan.flush_l2)
                finally:
                    unsubscribe()
                if not side.compiled:
                    side.compiled = [ct for t in dict.fromkeys(ln.task for ln in got)
                                     if (ct := engine.compiled_for(t)) is not None]
            _note(side, results)
            if any(r.status == "stopped" for r in results):
                return   # a turn cut short is not kept: rounds pair whole turns
            side.have.add(rnd)
            turns.put((side, got))
            tick()


def _context(engine: SweepEngine, side: Side, plan: Plan, pair: str, extra: dict[str, Any]) -> Any:
    made = len(side.have)
    with engine.variant(**side.variant.kwargs()):
        return collect(engine, side.compiled, workloads=side.workloads or plan.workloads or [], warmup=plan.warmup,
                       repeat=made * plan.per_round, rounds=made, per_round=plan.per_round, seed=plan.seed,
                       interleaved_with=f"sweep {plan.name}", pair=pair,
                       l2_flush=plan.flush_l2 and engine.backend == "cuda", skipped=side.skipped, sweep=plan.name,
                       variant=side.variant.to_dict(), sweep_default=side.default, sweep_plan=plan.to_dict(),
                       **extra)


def begin(engines: Sequence[SweepEngine], lanes: list[list[Side]], plan: Plan, history: History | None) -> None:
    """Each new side's run: its context (this starts a cluster's actor), its name, and its row in
    the history (status running: killed now, it reads back as interrupted)."""
    for i, sides in enumerate(lanes):
        pair = uuid.uuid4().hex[:12]   # one per device: its runs were measured side by side
        for side in sides:
            if side.resumed:
                continue
            side.run.context = _context(engines[i], side, plan, pair, {})
            side.device = device_name(side.run, i, len(lanes))
            side.run.name = f"{plan.name}:{side.variant.label}@{side.device}"
            side.begun = True
            if history is not None:
                side.writer = history.begin(side.run)


def _write(turns: queue.Queue[Turn], history: History | None) -> None:
    while True:
        try:
            side, got = turns.get_nowait()
        except queue.Empty:
            return
        if side.writer is not None:
            side.writer.add(got)   # the turn is saved and counted, or neither (signals held meanwhile)
        else:
            side.run.launches.extend(got)


def measure(engines: Sequence[SweepEngine], lanes: list[list[Side]], plan: Plan, history: History | None,
            on_progress: Callable[[int, int], None] | None, stop: threading.Event | None) -> tuple[
                dict[int, BaseException], BaseException | None]:
    """Run every lane on its engine's thread, saving turns as they end; returns the lanes' errors
    and the KeyboardInterrupt (Ctrl-C, or SIGTERM as the CLI raises it) that ended it, if any."""
    total = sum(plan.rounds - len(s.have) for sides in lanes for s in sides)
    halt = threading.Event()
    lock = threading.Lock()
    progress = [0]
    errors: dict[int, BaseException] = {}
    turns: queue.Queue[Turn] = queue.Queue()

    def tick() -> None:
        with lock:
            progress[0] += 1
            if on_progress:
                on_progress(progress[0], total)
        if stop is not None and stop.is_set():
            halt.set()   # the lane looks at `halt` before its next turn: a busy main thread may not look in time

    def work(i: int) -> None:
        try:
            _lane(engines[i], lanes[i], plan, halt, turns, tick)
        except BaseException as e:  # noqa: BLE001 - reported by the caller's thread
            errors[i] = e
            halt.set()
    threads = [threading.Thread(target=work, args=(i,), name=f"qdexplorer-sweep-{i}", daemon=True)
               for i in range(len(lanes))]
    for t in threads:
        t.start()

    def halt_all() -> None:
        halt.set()
        for e in engines[:len(lanes)]:
            e.stop()
    interrupted: BaseException | None = None
    stopped = False
    try:
        while any(t.is_alive() for t in threads):
            if stop is not None and stop.is_set() and not stopped:
                stopped = True
                halt_all()
            _write(turns, history)
            for t in threads:
                t.join(0.05)
    except KeyboardInterrupt as e:
        interrupted = e
        halt_all()
        deadline = time.monotonic() + JOIN_S   # a thread stuck in a device call is left behind (daemon)
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
    _write(turns, history)
    return errors, interrupted


def finish(engines: Sequence[SweepEngine], lanes: list[list[Side]], plan: Plan, history: History | None,
           errors: dict[int, BaseException], interrupted: BaseException | None) -> None:
    """Each run's final context and status: complete (every round), failed, stopped (the window's
    Stop, or a device that gave up) or interrupted (a signal)."""
    for i, sides in enumerate(lanes):
        pair = uuid.uuid4().hex[:12]
        for side in sides:
            run = side.run
            if not (side.begun or side.resumed):
                continue   # never begun (interrupted while the runs were begun)
            try:
                ctx = _context(engines[i], side, plan, pair, {})
            except Exception:  # noqa: BLE001 - a dead device: keep the context the run began with
                ctx = run.context
                ctx.rounds, ctx.repeat = len(side.have), len(side.have) * plan.per_round
            err = errors.get(i)
            problems = side.problems + ([f"{type(err).__name__}: {err}"] if err else [])
            status = ("failed" if problems else "complete" if complete(side.have, plan.rounds) else
                      "interrupted" if interrupted is not None else "stopped")
            notes = problems + ([f"{status}: {len(side.have)} of {plan.rounds} rounds measured and saved; "
                                 f"`qdexplorer sweep --resume {plan.name}` measures the rest"]
                                if status in ("stopped", "interrupted") else [])
            compile_ = {t: v for t, v in side.compile.items() if t in {ln.task for ln in run.launches}}
            if side.writer is not None:
                if compile_:
                    side.writer.add_compile({t: v for t, v in compile_.items() if t not in run.compile})
                side.writer.finish(status, "; ".join(notes), context=ctx)
            else:
                run.context, run.status, run.message = ctx, status, "; ".join(notes)
                run.compile = compile_


def resume_lanes(history: History, name: str) -> tuple[Plan, list[list[Side]], list[Variant], Variant]:
    """A saved sweep's plan and its runs as lanes (one per device they were made on), each side
    holding what it measured: `measure` then runs only the rounds they lack."""
    from .sweep_variant import group_runs
    runs = [history.load(s.id) for s in history.list() if s.label.startswith(f"{name}:")]
    runs = [r for r in runs if r.context.extra.get("sweep") == name]
    if not runs:
        raise QdError(f"no sweep named {name!r} in {history.path} to resume (qdexplorer runs lists the saved runs)")
    saved = runs[0].context.extra.get("sweep_plan")
    if saved is None:
        raise QdError(f"sweep {name!r} was saved before sweeps could be resumed (its runs hold no plan); "
                      f"run it again under a new --save name")
    try:   # the history is a file the user can edit: its plan is input
        ok = check(saved, PLAN, "sweep_plan")
    except Invalid as e:
        raise QdError(f"sweep {name!r}: the plan saved with its runs in {history.path} is not valid ({e}); it was "
                      f"edited or damaged: run the sweep again under a new --save name") from None
    plan = Plan(name, ok["rounds"], ok["per_round"], ok["warmup"], ok["seed"], ok["flush_l2"], ok.get("workloads"))
    by_device: dict[str, list[Side]] = {}
    variants, default, members = group_runs(runs, name, history.path)
    for v, device, r in members:
        side = Side(v, bool(r.context.extra.get("sweep_default")), run=r, resumed=True,
                    device=device, workloads=list(r.context.workloads), skipped=dict(r.context.skipped))
        side.have = {ln.round for ln in r.launches if ln.round is not None}
        by_device.setdefault(side.device, []).append(side)
    for sides in by_device.values():   # the default first on each device, as a new sweep deals them
        sides.sort(key=lambda s: (not s.default, variants.index(s.variant)))
    return plan, list(by_device.values()), variants, default


def reopen(history: History, lanes: list[list[Side]], plan: Plan) -> list[list[Side]]:
    """The lanes that lack a round, their runs reopened for writing (status running again)."""
    todo = [sides for sides in lanes if any(not complete(s.have, plan.rounds) for s in sides)]
    for sides in todo:
        for side in sides:
            side.writer = history.reopen(side.run)
    return todo
