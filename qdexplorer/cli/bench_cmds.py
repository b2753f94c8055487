"""`qdexplorer bench | compare | runs | export`: saved runs and A/B comparisons for scripts and CI.

One idea apart from the project commands: the run history. `compare` takes two saved runs, or fresh sides that are measured now, interleaved
round by round: `now` (the code as it is), `generated` / `override` (hide or use the project's
PTX overrides), `per_task` / `whole` (compile mode), `cpu` / `cuda` (backend).
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import Any

import numpy as np

from ..bench.compare import compare_runs
from ..bench.export import write
from ..bench.run import Run
from ..bench.runner import Side, add_rounds, bench, interleaved
from ..engine import Engine
from ..bench.history import FRESH_SIDES as FRESH
from ..bench.history_repair import repair
from ..ir.errors import QdError
from ..project.data_folder import history_path
from .arg_types import at_least, seed, percent, probability, seconds
from .common import backend_of, add_lock_clocks_arg, add_project_args, locked_clocks, make_engine, open_history
from ..wording import plural


def add_commands(sub: Any) -> None:
    b = sub.add_parser("bench", help="run workloads with warm-ups and N timed repeats, and save the run")
    add_project_args(b)
    _add_run_args(b)
    b.add_argument("--rounds", type=at_least(1), default=None,
                   help="split the repeats into this many blocks spread over the run, the workloads taking "
                        "turns (default 10, or one a repeat when fewer); comparisons need 3 or more")
    b.add_argument("--save", metavar="NAME", help="name the saved run (default: numbered only)")
    b.add_argument("--no-save", action="store_true", help="measure and print, save nothing")
    b.add_argument("--add-to", metavar="RUN",
                   help="measure --rounds more rounds (default 3) of the same code and add them to the saved RUN, "
                        "as an `unsure` comparison asks (its workloads and repeats per round are reused)")
    c = sub.add_parser("compare", help="compare two runs task by task (saved names, or fresh: "
                                       + ", ".join(FRESH) + ")")
    add_project_args(c)
    c.add_argument("a", metavar="A", help="baseline: a saved run (name, #id, latest, latest~1) or a fresh side")
    c.add_argument("b", metavar="B", help="candidate, as A")
    c.add_argument("--fail-if-slower", type=percent, metavar="PCT",
                   help="exit 1 when a task is slower by more than PCT percent with 95%% confidence")
    c.add_argument("--alpha", type=probability, default=0.05,
                   help="1 - the confidence level of the ratio's interval (default 0.05: a 95%% interval)")
    c.add_argument("--threshold", type=percent, metavar="PCT",
                   help="changes below PCT percent count as the same (default: 5 for saved CUDA runs, 15 for "
                        "saved CPU runs, 2 / 5 for interleaved fresh sides on CUDA / CPU)")
    c.add_argument("--task", help="fresh generated/override: only this task's override (default: all)")
    c.add_argument("--rounds", type=at_least(1), default=10, help="fresh comparisons: A/B rounds (default 10)")
    _add_run_args(c, repeat=5, repeat_help="fresh comparisons: timed repeats per side per round (default 5); "
                                           "'now' against a saved run: the saved run's repeat")
    c.add_argument("--save", metavar="PREFIX", help="fresh sides: save them as PREFIX-A and PREFIX-B")
    for side in ("a", "b"):   # one device per side: GPU 0 against GPU 1, one node against another
        c.add_argument(f"--{side}-device", metavar="SPEC",
                       help=f"fresh side {side.upper()} runs on this device of the --cluster (GPU, HOST, HOST:GPU, "
                            f"or 'local' for this machine without Ray); default: --device")
    # `history`: the window calls the saved runs History
    r = sub.add_parser("runs", aliases=["history"], help="list, rename or delete the saved runs of a project "
                                                         "(also: history)")
    r.add_argument("project", nargs="?", help="project folder or kernel file (default: the bundled demo)")
    r.add_argument("--json", action="store_true", help="print machine-readable JSON")
    r.add_argument("--delete", metavar="RUN", action="append", help="delete a saved run (repeatable)")
    r.add_argument("--rename", nargs=2, metavar=("RUN", "NAME"), help="rename a saved run")
    r.add_argument("--repair", action="store_true", help="copy every readable run of a damaged history into a new "
                   "file (the damaged one is kept beside it as history.sqlite.damaged-DATE)")
    e = sub.add_parser("export", help="export a saved run as a Perfetto trace, CSV or JSON")
    e.add_argument("project", nargs="?", help="project folder or kernel file (default: the bundled demo)")
    e.add_argument("run", metavar="RUN", help="saved run: name, #id, latest, latest~1")
    g = e.add_mutually_exclusive_group(required=True)
    g.add_argument("--perfetto", metavar="FILE", help="Chrome/Perfetto trace-event JSON (open in ui.perfetto.dev)")
    g.add_argument("--csv", metavar="FILE", help="one row per launch")
    g.add_argument("--json", metavar="FILE", help="the whole run: context and every launch")


def _add_run_args(p, repeat=20, repeat_help="timed repeats (default 20)"):
    p.add_argument("--backend", choices=("cpu", "cuda"), help="default: project setting, else cpu")
    p.add_argument("--workload", action="append", help="only this workload (repeatable; default: all)")
    p.add_argument("--repeat", type=at_least(1), default=repeat, help=repeat_help)
    p.add_argument("--warmup", type=at_least(0), default=None, help="untimed repeats first (default 2; 1 per side "
                                                            "and round in fresh comparisons)")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of the workloads' random inputs (default 0: the same inputs every run)")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds before a launch counts as hung")
    p.add_argument("--no-flush-l2", dest="flush_l2", action="store_false",
                   help="CUDA: keep the L2 cache warm between launches (default: evict it before each launch, "
                        "as Nsight Compute does)")
    add_lock_clocks_arg(p)


def _engine(a: argparse.Namespace, backend: str | None = None) -> Engine:
    return make_engine(a, backend=backend or a.backend)


def _when(ts: float) -> str:
    return datetime.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def _run_summary(run: Run) -> list[dict[str, Any]]:
    out = []
    for t in run.tasks():
        s = run.samples(t)
        out.append({"task": t, "launches": len(s), "median_ms": float(np.median(s)), "min_ms": float(s.min())})
    return out


def cmd_bench(a) -> int:
    if a.repeat < 1:
        raise QdError("--repeat must be at least 1")
    if a.rounds is not None and a.rounds < 1:
        raise QdError("--rounds must be at least 1")
    if a.save in FRESH:
        raise QdError(f"--save {a.save}: that name means a fresh side in `compare`; choose another")
    if a.add_to and (a.no_save or a.save or a.workload):
        raise QdError("--add-to RUN adds rounds to a saved run with its own workloads: drop --no-save, --save and "
                      "--workload")
    history = None if a.no_save else open_history(a.project)  # opened first: a bad --save name fails before running
    try:
        with locked_clocks(a, {backend_of(a, a.backend)}), _engine(a) as eng:
            if a.add_to:
                run = add_rounds(eng, history, a.add_to, a.rounds or 3)
                print(f"added {plural(a.rounds or 3, 'round')} to {run.label}: now {plural(run.context.rounds or 0, 'round')}",
                      file=sys.stderr)
            else:
                if history is not None:
                    _gpu_code_too(eng)
                run = bench(eng, a.workload, repeat=a.repeat, warmup=2 if a.warmup is None else a.warmup,
                            seed=a.seed, name=a.save, history=history, flush_l2=a.flush_l2, rounds=a.rounds)
    finally:
        if history is not None:
            history.close()
    where = str(history.path) if history is not None else None
    rows = _run_summary(run)
    if a.json:
        print(json.dumps({"run": run.id, "name": run.name, "history": where, "status": run.status,
                          "message": run.message, "tasks": rows,
                          # the packed code a report diffs is for `report` and `export --json`, not this summary
                          "context": {k: v for k, v in run.context.to_dict().items() if k != "code"}}, indent=2))
    else:
        width = max([len(r["task"]) for r in rows] + [4])
        for r in rows:
            print(f"{r['task']:<{width}}  {r['launches']:>5}x  median {r['median_ms']:10.4f} ms  "
                  f"min {r['min_ms']:10.4f} ms")
        if run.message:
            print(f"{run.status}: {run.message}", file=sys.stderr)
        ctx = run.context
        res = run.timer_resolution_ms() * 1e3
        flush = ", L2 flushed before each launch" if ctx.l2_flush else ""
        clock = f", SM clock {ctx.clocks_mhz['sm']:.0f} MHz while timing" if ctx.clocks_mhz.get("sm") else ""
        clock += f" (locked at {ctx.clocks_mhz['locked_sm']} MHz)" if ctx.clocks_mhz.get("locked_sm") else ""
        print(f"{plural(len(run.launches), 'launch')} of {plural(len(rows), 'task')} in {plural(ctx.rounds or 1, 'round')} ({ctx.backend}, "
              f"{ctx.device}; timer resolution {res:.3g} µs{flush}{clock}); "
              + (f"saved as {run.label} in {where}" if where else "not saved"))
    return 0 if run.status == "complete" else 1


def _gpu_code_too(eng) -> None:
    """A CPU run saves the PTX of its tasks too, so a report of it shows the PTX and SASS diff (what the
    code becomes on a GPU); the NVPTX compile is cached and made before timing, never during it."""
    if eng.backend != "cuda":
        try:
            eng.compile(target="nvptx")
        except Exception as e:  # noqa: BLE001 - a failed GPU compile only leaves the PTX out of the run
            print(f"qdexplorer: the run keeps no PTX ({type(e).__name__}: {e})", file=sys.stderr)


def _fresh_side(a, which: str, engines: dict, device: str | None = None):
    """A runner.Side for a fresh variant; engines are shared per backend and device."""
    backend = which if which in ("cpu", "cuda") else None
    key = (backend or "default", device)
    if key not in engines:
        engines[key] = make_engine(a, backend=backend or a.backend, device=device)
    eng = engines[key]
    label = which if device is None else f"{which}@{device}"
    if which == "generated":
        return Side(label, eng, {"hide_overrides": a.task or True})
    if which in ("per_task", "whole"):
        return Side(label, eng, {"mode": which})
    return Side(label, eng)


def _fresh_pair(a):
    engines: dict = {}
    try:
        sa, sb = _fresh_side(a, a.a, engines, a.a_device), _fresh_side(a, a.b, engines, a.b_device)
        if sa.label == sb.label:
            # an A/A comparison (`now now`): the code against itself, interleaved like any other pair,
            # which shows what the verdicts say when nothing changed (the noise floor of this machine)
            sa.label, sb.label = f"{sa.label} (A)", f"{sb.label} (B)"
            print(f"A/A: {a.a} against itself, nothing differs between the sides", file=sys.stderr)
        if a.rounds < 1 or a.repeat < 1:
            raise QdError("--rounds and --repeat must be at least 1")
        print(f"interleaving {a.a} and {a.b}: {plural(a.rounds, 'round')} a side, {plural(a.repeat, 'repeat')} a side in each",
              file=sys.stderr)
        with locked_clocks(a, {eng.backend for eng in engines.values()}):
            return interleaved(sa, sb, a.workload, rounds=a.rounds, per_round=a.repeat,
                               warmup=1 if a.warmup is None else a.warmup, seed=a.seed, flush_l2=a.flush_l2)
    finally:
        for eng in engines.values():
            eng.close()


def _now_like(a, saved, device: str | None = None):
    """Measure the code as it is now, with the saved run's workloads, repeat and backend."""
    ctx = saved.context
    if a.backend is None and ctx.backend:
        a.backend = ctx.backend
    with locked_clocks(a, {backend_of(a, a.backend)}), make_engine(a, backend=a.backend, device=device) as eng:
        return bench(eng, a.workload or ctx.workloads or None, repeat=ctx.repeat or 20,
                     warmup=ctx.warmup if a.warmup is None else a.warmup, seed=a.seed, name="now",
                     flush_l2=ctx.l2_flush if a.flush_l2 else False, rounds=ctx.rounds)


def cmd_compare(a) -> int:
    fresh_a, fresh_b = a.a in FRESH, a.b in FRESH
    if a.lock_clocks is not None and not (fresh_a or fresh_b):
        print("qdexplorer: --lock-clocks: two saved runs are compared as they were measured; nothing is timed "
              "now, so nothing is locked", file=sys.stderr)
    if fresh_a and fresh_b:
        ra, rb = _fresh_pair(a)
        if a.save:
            ra.name, rb.name = f"{a.save}-A", f"{a.save}-B"
            with open_history(a.project) as h:
                h.save(ra)
                h.save(rb)
    else:
        with open_history(a.project, create=False) as h:
            if fresh_a or fresh_b:
                if "now" not in (a.a, a.b):
                    raise QdError(f"a saved run can only be compared with 'now' (got {a.a!r} and {a.b!r}); "
                                  f"compare two fresh sides, e.g. `compare generated override`")
                if (a.b_device if fresh_a else a.a_device):
                    raise QdError("--a-device / --b-device name where a fresh side runs; a saved run keeps the "
                                  "device it ran on")
                saved = h.load(a.b if fresh_a else a.a)
                now = _now_like(a, saved, a.a_device if fresh_a else a.b_device)
                ra, rb = (now, saved) if fresh_a else (saved, now)
            else:
                if a.a_device or a.b_device:
                    raise QdError("--a-device / --b-device name where a fresh side runs; saved runs keep the "
                                  "device they ran on (compare them as they are)")
                ra, rb = h.load(a.a), h.load(a.b)
    cmp = compare_runs(ra, rb, alpha=a.alpha, threshold=None if a.threshold is None else a.threshold / 100.0)
    failing = cmp.regressions(a.fail_if_slower) if a.fail_if_slower is not None else []
    if a.json:
        out = cmp.to_dict()
        out["fail_if_slower"] = a.fail_if_slower
        out["failing"] = [t.task for t in failing]
        print(json.dumps(out, indent=2))
    else:
        print(cmp.table())
        for t in failing:
            print(f"FAIL {t.task}: {t.change:+.1%} slower (95% CI {t.ci[0]:.3f}–{t.ci[1]:.3f}), "
                  f"more than {a.fail_if_slower:g}%", file=sys.stderr)
    return 1 if failing else 0


def cmd_runs(a) -> int:
    if a.repair:
        if not history_path(a.project).exists():
            raise QdError(f"no history to repair: {history_path(a.project)} does not exist")
        done = repair(history_path(a.project))
        print(done.summary(), file=sys.stderr)
        return 0
    if not history_path(a.project).exists() and not (a.delete or a.rename):
        print(f"no saved runs in {history_path(a.project)} (save one with: qdexplorer bench --save NAME)")
        return 0
    with open_history(a.project, create=False, write=bool(a.delete or a.rename)) as h:
        for ref in a.delete or []:
            print(f"deleted #{h.delete(ref)}", file=sys.stderr)
        if a.rename:
            h.rename(*a.rename)
        runs = h.list()
        if a.json:
            print(json.dumps({"history": str(h.path), "runs": [vars(s) for s in runs]}, indent=2))
            return 0
        if not runs:
            print(f"no saved runs in {h.path} (save one with: qdexplorer bench --save NAME)")
            return 0
        width = max([len(s.label) for s in runs] + [4])
        print(f"{'name':<{width}}  {'id':<5} {'saved':<16}  {'on':<4} {'launches':>14}  {'tasks':>9}  git")
        for s in runs:
            flag = "" if s.status == "complete" else f"  [{s.status}]"
            print(f"{s.label:<{width}}  #{s.id:<4} {_when(s.created)}  {s.backend:<4} {plural(s.launches, 'launch'):>14}  "
                  f"{plural(s.tasks, 'task'):>9}  {s.git}{flag}")
    return 0


def cmd_export(a) -> int:
    kind, path = next((k, getattr(a, k)) for k in ("perfetto", "csv", "json") if getattr(a, k))
    with open_history(a.project, create=False) as h:
        run = h.load(a.run)
    print(f"wrote {write(run, path, kind)} ({plural(len(run.launches), 'launch')} of {run.label})")
    return 0


COMMANDS = {"bench": cmd_bench, "compare": cmd_compare, "runs": cmd_runs, "history": cmd_runs, "export": cmd_export}
