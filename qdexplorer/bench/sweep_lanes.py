"""How a sweep runs on its devices and is saved while it runs (bench/sweep.py holds what a sweep is).

Every (variant, device) run is begun in the history before the first launch, with the sweep's plan
in its context (`sweep_plan`: rounds, repeats, warm-ups, seed, workloads, flush), and gains each
turn's launches in one transaction as the turn ends: a sweep killed at any point (SIGKILL too)
keeps every finished turn, and its runs read back as `interrupted`. Only the calling thread
touches the history (SQLite connections belong to their thread): the device threads hand finished
turns over through a queue. A turn cut short by a stop is dropped, since rounds pair whole turns;
`resume` reads a sweep's runs back and measures only the rounds each one lacks, on the same runs.

A device is *lost* when its Ray actor dies under a turn (its process killed, its node gone, a crash):
the engine would start a new actor, which Ray may place on another GPU, so the device's rounds
would no longer be one device's. Instead its lane ends there (the turn cut short is dropped, as a
stopped one is), each of its runs keeps every turn already saved and is marked lost
(`sweep_lost` in its context, status failed; `resume` never takes it up again), and each variant it
had not finished is measured whole on a surviving device, as a new run named for that device and
paired with that device's default (`sweep_moved_from` in its context): rounds the survivor had
already measured before the handover are measured after its own, against its default's saved
rounds of the same number. With no device left, the sweep fails as before. A local engine's
worker (no cluster) is replaced in place, on the same machine, and its lane goes on.
"""
from __future__ import annotations

import dataclasses
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
from .sweep_variant import group_runs

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
    lost: str = ""                # its device was lost before it had every round: why, and where its variant went
    moved_from: str = ""          # measured here because the device named was lost


def lacking(side: Side, rounds: int) -> bool:
    """The side still has rounds to measure: not every round, and its device not lost."""
    return not side.lost and not complete(side.have, rounds)


class DeviceLost(Exception):
    """A lane's device actor died under a turn (cluster engines only)."""


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
    the round; each finished turn goes to `turns`. Sides another device's loss hands over (appended
    to `sides` by the calling thread) join at the next round; the rounds before it are measured in
    a further pass, after this device's own. DeviceLost when the actor dies under a turn."""
    while True:
        for rnd in range(plan.rounds):
            if not _round(engine, sides, plan, halt, turns, tick, rnd):
                return
        if not any(lacking(s, plan.rounds) for s in sides):
            return


def _round(engine: SweepEngine, sides: list[Side], plan: Plan, halt: threading.Event, turns: queue.Queue[Turn],
           tick: Callable[[], None], rnd: int) -> bool:
    """One round of a lane; False when it must end (halted, or a turn stopped)."""
    warmup, per_round = plan.warmup, plan.per_round
    now = list(sides)
    order = now[rnd % len(now):] + now[:rnd % len(now)]
    for side in order:
        if rnd in side.have or side.lost:
            continue
        if halt.is_set():
            return False
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
        died = next((r.fault for r in results if r.fault is not None and r.fault.kind == "died"), None)
        if died is not None and engine.cluster:
            raise DeviceLost(str(died).replace("; the next command starts a new one", ""))
        _note(side, results)
        if any(r.status == "stopped" for r in results):
            return False   # a turn cut short is not kept: rounds pair whole turns
        side.have.add(rnd)
        turns.put((side, got))
        tick()
    return True


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


@dataclass
class Measured:
    """How `measure` ended: each lane's error, the KeyboardInterrupt that ended it (Ctrl-C, or
    SIGTERM as the CLI raises it), and the lanes whose device was lost (their variants moved)."""
    errors: dict[int, BaseException] = field(default_factory=dict)
    interrupted: BaseException | None = None
    gone: set[int] = field(default_factory=set)


def measure(engines: Sequence[SweepEngine], lanes: list[list[Side]], plan: Plan, history: History | None,
            on_progress: Callable[[int, int], None] | None, stop: threading.Event | None,
            on_note: Callable[[str], None] | None = None, notes: list[str] | None = None) -> Measured:
    """Run every lane on its engine's thread, saving turns as they end. A lane whose device is
    lost hands its unfinished variants to the others (`_hand_over`), said through `on_note` and
    in `notes`."""
    total = [sum(plan.rounds - len(s.have) for sides in lanes for s in sides if not s.lost)]
    halt = threading.Event()
    lock = threading.Lock()
    progress = [0]
    out = Measured()
    lost: dict[int, str] = {}   # lane -> why, set by its thread
    turns: queue.Queue[Turn] = queue.Queue()

    def tick() -> None:
        with lock:
            progress[0] += 1
            if on_progress:
                on_progress(progress[0], total[0])
        if stop is not None and stop.is_set():
            halt.set()   # the lane looks at `halt` before its next turn: a busy main thread may not look in time

    def work(i: int) -> None:
        try:
            _lane(engines[i], lanes[i], plan, halt, turns, tick)
        except DeviceLost as e:
            lost[i] = str(e)
        except BaseException as e:  # noqa: BLE001 - reported by the caller's thread
            out.errors[i] = e
            halt.set()

    def start(i: int) -> threading.Thread:
        t = threading.Thread(target=work, args=(i,), name=f"qdexplorer-sweep-{i}", daemon=True)
        t.start()
        return t
    threads = {i: start(i) for i in range(len(lanes))}

    def halt_all() -> None:
        halt.set()
        for e in engines[:len(lanes)]:
            e.stop()
    stopped = False
    try:
        while True:
            if stop is not None and stop.is_set() and not stopped:
                stopped = True
                halt_all()
            _write(turns, history)
            for i in [i for i in lost if i not in out.gone]:
                _write(turns, history)   # its last turns are saved before its runs are marked lost
                with lock:
                    total[0] += _hand_over(i, lost[i], lanes, plan, history, out, threads, on_note, notes)
            for j, t in threads.items():   # a survivor that had finished before the handover starts again
                if (not t.is_alive() and not halt.is_set() and j not in out.errors and j not in lost
                        and any(lacking(s, plan.rounds) for s in lanes[j])):
                    threads[j] = start(j)
            if not any(t.is_alive() for t in threads.values()) and all(i in out.gone for i in lost):
                break
            for t in list(threads.values()):
                t.join(0.05)
    except KeyboardInterrupt as e:
        out.interrupted = e
        halt_all()
        deadline = time.monotonic() + JOIN_S   # a thread stuck in a device call is left behind (daemon)
        for t in threads.values():
            t.join(max(0.0, deadline - time.monotonic()))
    _write(turns, history)
    return out


def _hand_over(i: int, why: str, lanes: list[list[Side]], plan: Plan, history: History | None, out: Measured,
               threads: dict[int, threading.Thread], on_note: Callable[[str], None] | None,
               notes: list[str] | None) -> int:
    """Lane `i`'s device was lost: each variant it had not finished becomes a new run on the
    surviving lane with the fewest turns left, begun here (the calling thread owns the history);
    its own runs keep what they saved and are marked lost. Returns the change in turns to do."""
    out.gone.add(i)
    where = lanes[i][0].device
    alive = [j for j in range(len(lanes)) if j not in out.gone and j not in out.errors]
    done = sum(len(s.have) for s in lanes[i])
    if not alive:   # nowhere to go: the lane fails, as any device error does
        out.errors[i] = DeviceLost(f"device {where} was lost after {done} turns: {why}; no other device is left to "
                                   f"finish its variants")
        return 0
    todo = [s for s in lanes[i] if lacking(s, plan.rounds)]
    moving = [s for s in todo if not s.default]
    left = {j: sum(plan.rounds - len(s.have) for s in lanes[j] if not s.lost) for j in alive}
    went: dict[str, list[str]] = {}
    change = -sum(plan.rounds - len(s.have) for s in todo)
    for side in moving:
        j = min(alive, key=lambda k: left[k])
        left[j] += plan.rounds
        change += plan.rounds
        base = next((s for s in lanes[j] if s.default), lanes[j][0])
        new = Side(side.variant, False, device=base.device, moved_from=where, workloads=list(side.workloads))
        extra = dict(base.run.context.extra) | {"variant": side.variant.to_dict(), "sweep_default": False,
                                                "sweep_moved_from": where}
        new.run.context = dataclasses.replace(base.run.context, tasks={}, code={}, extra=extra,
                                              mode=side.variant.kwargs().get("mode", base.run.context.mode))
        new.run.name = f"{plan.name}:{side.variant.label}@{new.device}"
        new.begun = True
        if history is not None:
            new.writer = history.begin(new.run)
        lanes[j].append(new)   # its lane's thread takes it up at its next round
        went.setdefault(new.device, []).append(side.variant.label)
    dest = ", ".join(f"{label} on {d}" for d, labels in went.items() for label in labels)
    note = (f"device {where} was lost after {done} of its {done + sum(plan.rounds - len(s.have) for s in todo)} "
            f"turns: {why}. " + (f"Its unfinished variants go on on the other device(s), each against that "
                                 f"device's default: {dest}. " if went else "") +
            f"The turns measured on {where} are kept and saved.")
    for side in todo:
        side.lost = note
    if notes is not None:
        notes.append(note)
    if on_note is not None:
        on_note(note)
    return change


def finish(engines: Sequence[SweepEngine], lanes: list[list[Side]], plan: Plan, history: History | None,
           errors: dict[int, BaseException], interrupted: BaseException | None,
           gone: set[int] | frozenset[int] = frozenset()) -> None:
    """Each run's final context and status: complete (every round), failed, stopped (the window's
    Stop, or a device that gave up) or interrupted (a signal). A lost device's runs (lanes in
    `gone`) keep the context they began with (asking it would start a new actor), marked lost."""
    for i, sides in enumerate(lanes):
        pair = uuid.uuid4().hex[:12]
        for side in sides:
            run = side.run
            if not (side.begun or side.resumed):
                continue   # never begun (interrupted while the runs were begun)
            extra = {"sweep_moved_from": side.moved_from} if side.moved_from else {}
            try:
                if i in gone:
                    raise DeviceLost(side.lost)
                ctx = _context(engines[i], side, plan, pair, extra)
            except Exception:  # noqa: BLE001 - a dead device: keep the context the run began with
                ctx = run.context
                ctx.rounds, ctx.repeat = len(side.have), len(side.have) * plan.per_round
            if side.lost:
                ctx.extra["sweep_lost"] = side.lost
            err = errors.get(i)
            problems = side.problems + ([str(err) if isinstance(err, DeviceLost) else f"{type(err).__name__}: {err}"]
                                        if err else [])
            status = ("failed" if problems or side.lost else "complete" if complete(side.have, plan.rounds) else
                      "interrupted" if interrupted is not None else "stopped")
            notes = problems + ([side.lost] if side.lost else []) + (
                [f"{status}: {len(side.have)} of {plan.rounds} rounds measured and saved; "
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
                    device=device, workloads=list(r.context.workloads), skipped=dict(r.context.skipped),
                    lost=str(r.context.extra.get("sweep_lost") or ""),
                    moved_from=str(r.context.extra.get("sweep_moved_from") or ""))
        side.have = {ln.round for ln in r.launches if ln.round is not None}
        by_device.setdefault(side.device, []).append(side)
    for sides in by_device.values():   # the default first on each device, as a new sweep deals them
        sides.sort(key=lambda s: (not s.default, variants.index(s.variant)))
    return plan, list(by_device.values()), variants, default


def reopen(history: History, lanes: list[list[Side]], plan: Plan) -> list[list[Side]]:
    """The lanes that lack a round, their runs reopened for writing (status running again); a
    lost device's runs are never reopened."""
    todo = [sides for sides in lanes if any(lacking(s, plan.rounds) for s in sides)]
    for sides in todo:
        for side in sides:
            if not side.lost:
                side.writer = history.reopen(side.run)
    return todo
