"""`qdexplorer quadrants SCRIPT.py`: run a real Quadrants program and list, edit and time its tasks.

Exit codes as for the other commands: 0 success, 1 the program failed (its error is printed) or an
edit was not used, 2 bad input (missing script, unknown task, no edits, Quadrants not installed).
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys

from ..counters import probe as P
from ..ir.errors import QdError
from ..quadrants.program import INSTALL_HINT, check_script, run_program
from .arg_types import at_least, repeats, seconds
from .counters_cmds import print_results


def add_parser(sub):
    q = sub.add_parser("quadrants", help="run a real Quadrants program: its tasks, IR dumps, PTX edits, timings",
                       usage="qdexplorer quadrants SCRIPT.py [options] [-- ARGS...]",
                       description="Run a Quadrants program with dumps on, caches off and the kernel profiler on; "
                       "list its kernels and tasks, or rerun it with edited PTX (QUADRANTS_LOAD_PTX) or LLVM IR "
                       "(QD_LOAD_IR) and compare timings. Arguments after -- go to the program.")
    q.add_argument("script", help="the program, e.g. my_sim.py")
    q.set_defaults(script_args=[])  # cli.main passes what follows `--` (the program's own arguments)
    q.add_argument("--arch", choices=("cpu", "cuda"), help="force qd.init(arch=...) (default: what the program asks)")
    q.add_argument("--json", action="store_true", help="print machine-readable JSON (schema: docs/quadrants.md)")
    q.add_argument("--timeout", type=seconds, default=300.0, help="seconds before the program is killed (default 300)")
    q.add_argument("--dump", metavar="DIR", help="dump folder (default: a new temporary folder, kept)")
    q.add_argument("--python", metavar="EXE", help="interpreter that has Quadrants (default: this one)")
    q.add_argument("--keep-children", action="store_true", help="leave what the program started in the "
                   "background running after it exits (default: its whole process group is ended)")
    g = q.add_mutually_exclusive_group()
    g.add_argument("--load-ptx", metavar="DIR", help="rerun with the edited <task>.ptx files of DIR (CUDA)")
    g.add_argument("--load-ll", metavar="DIR", help="rerun with the edited <task>_llvm.ll files of DIR (any arch)")
    q.add_argument("--export", metavar="TASK", help="with --load-ptx/--load-ll DIR: copy TASK's generated code "
                   "into DIR (with the sidecar that detects stale edits) to start editing; no rerun")
    q.add_argument("--rounds", type=at_least(1), default=None, help="with --load-ptx/--load-ll: run the generated and the "
                   "edited program this many times each, alternately, and compare per task across the runs "
                   "(default 5)")
    q.add_argument("--counters", metavar="TASK", help="hardware counters of TASK under Nsight Compute (ncu), with "
                   "the PTX Quadrants generates; with --load-ptx DIR, an A/B: generated against the edits (CUDA)")
    q.add_argument("--preset", choices=("quick", "full"), default="quick", help="with --counters: quick (speed of "
                   "light, occupancy, launch) or full (adds memory, stalls, instruction mix, per-line counters)")
    q.add_argument("--fresh", action="store_true", help="with --counters: profile again even if cached")
    q.add_argument("--repeats", type=repeats, metavar="N", help="with --counters and --load-ptx: profiles a side (default "
                   "3), so each Δ is called 'changed' or 'noise' against the spread of the repeats")
    q.add_argument("--ncu", help="with --counters: the ncu to use (default: PATH, CUDA_HOME, /usr/local/cuda/bin, "
                   "/opt/nvidia/nsight-compute, or $QDEXPLORER_NCU)")
    q.add_argument("--ours", action="store_true", help="also run it under qdexplorer.lang (import quadrants -> "
                   "qdexplorer.lang) and put the same tasks side by side")
    q.add_argument("--all", action="store_true", help="also list Quadrants' own kernels (ext_arr_to_ndarray...)")
    q.add_argument("--output", action="store_true", help="also print the program's stdout and stderr")
    return q


def cmd_quadrants(a) -> int:
    # deliberate lazy load: this command's own modules stay out of every other command's start-up (~15 ms)
    from ..quadrants import compare, edits, ours as under_lang
    check_script(a.script)
    if not a.python and importlib.util.find_spec("quadrants") is None:
        if a.counters:   # the root cause first: no GPU, then no ncu, then no reader, and only then Quadrants
            if not P.probe(a.ncu, "cuda").ok:
                return _counters(a, a.script_args)
        raise QdError(f"Quadrants is not installed in {sys.executable}: {INSTALL_HINT}")
    args = a.script_args
    kind, folder = ("ptx", a.load_ptx) if a.load_ptx else ("ll", a.load_ll)  # folder None: neither given
    if a.export and not folder:
        raise QdError("--export TASK needs --load-ptx DIR or --load-ll DIR (the folder to write the edit into)")
    if a.rounds is not None and (a.rounds < 1 or not folder or a.export):
        raise QdError("--rounds N (at least 1) goes with --load-ptx DIR or --load-ll DIR, to compare the runs")
    if a.counters:
        return _counters(a, args)
    common = dict(arch=a.arch, timeout=a.timeout, python=a.python, keep_children=a.keep_children)
    if folder and not a.export:
        rounds = a.rounds or compare.ROUNDS
        if not a.json:
            print(f"running the generated and the edited program {rounds} times each, alternately…", file=sys.stderr)
        res = compare.edit_and_rerun(a.script, folder, kind, args, dump_dir=a.dump, rounds=rounds, **common)
        base, edited = res["baseline"], res["edited"]
    else:
        base, edited, res = run_program(a.script, args, dump_dir=a.dump, **common), None, None
    if a.export and folder:  # (--export without a folder was refused above)
        return _export(base, edits.EditFolder(folder, kind), a.export)
    ours = None
    if a.ours and base.ok:
        o = under_lang.run_ours(a.script, args, arch=a.arch or "cpu", timeout=a.timeout, keep_children=a.keep_children)
        ours = {"error": o.get("error"), "kernels": under_lang.compare_with_ours(base, o)}
    if a.json:
        doc = base.to_dict()
        if ours is not None:
            doc["ours"] = ours
        if res is not None:
            doc["edited_run"] = edited.to_dict() if edited else None
            doc["reruns"] = _reruns(res)
            doc["comparison"] = res["comparison"]
        print(json.dumps(doc, indent=2))
    else:
        _print_run(base, a.all)
        if res is not None and edited is not None:
            _print_comparison(res, edited, a.all)
        if ours is not None:
            _print_ours(ours)
        if a.output:
            for r in (base, edited):
                if r is not None:
                    print(f"--- program output ({'edited run' if r.load else 'run'}) ---\n{r.stdout}{r.stderr}")
    for w in base.warnings:
        print(f"qdexplorer: warning: {w}", file=sys.stderr)
    runs = (res["generated_runs"] + res["edited_runs"]) if res is not None else [base]
    failed = list({id(r): r for r in runs if not r.ok}.values())
    for r in failed:
        print(f"qdexplorer: {r.script}: {r.error}", file=sys.stderr)
    load = (res or {}).get("load") or {}
    unused = [e for e in load.get("edits", []) if not e.get("used")]
    for e in unused:
        print(f"qdexplorer: the edit {e['file']} was not used ({e['evidence']})", file=sys.stderr)
    return 1 if failed or unused else 0


def _counters(a, args) -> int:
    """`--counters TASK`: one profile of the task, or (with --load-ptx) generated against the edits."""
    from ..quadrants import task_counters as tc   # deliberate lazy load: as cmd_quadrants's, for start-up
    if a.load_ll or a.export or a.rounds is not None or a.ours or (a.arch and a.arch != "cuda"):
        raise QdError("--counters TASK goes with --load-ptx DIR (an A/B), --preset, --fresh, --ncu, --json; "
                      "it runs the program on CUDA")
    kw = dict(setting=a.ncu, timeout=a.timeout, fresh=a.fresh, python=a.python)
    if a.load_ptx:
        if not a.json:
            print("profiling the task with the generated PTX, then with the edits…", file=sys.stderr)
        reps = 3 if a.repeats is None else a.repeats
        if reps < 1:
            raise QdError(f"--repeats {reps}: give 1 or more profiles per side")
        _, ra, rb = tc.compare_task(a.script, a.counters, a.load_ptx, args, a.preset, repeats=reps, **kw)
        return print_results([tc.GENERATED, "edited"], [ra, rb], a.json)
    return print_results([tc.GENERATED], [tc.profile_task(a.script, a.counters, args, a.preset, **kw)], a.json)


def _reruns(res: dict) -> list[dict]:
    """Every program run of a comparison, in the order they ran (G E G E …)."""
    out = []
    for rnd in range(max(len(res["generated_runs"]), len(res["edited_runs"]))):
        for side in ("generated", "edited"):
            runs = res[f"{side}_runs"]
            if rnd < len(runs):
                r = runs[rnd]
                out.append({"side": side, "round": rnd, "seconds": round(r.seconds, 6), "error": r.error,
                            "launches": sum(len(v) for v in r.launches.values())})
    return out


def _export(run, folder, task: str) -> int:
    if not run.ok:
        print(f"qdexplorer: {run.script}: {run.error}", file=sys.stderr)
        return 1
    t = run.task(task)
    if t is None:
        names = ", ".join(x.stable_name for x in run.tasks(include_internal=False))
        raise QdError(f"no task named {task} (tasks: {names})")
    text = t.text(folder.kind.file_kind)
    if not text:
        raise QdError(f"the run wrote no {folder.kind.suffix} for {t.name}"
                      + (" (PTX exists only on CUDA: --arch cuda)" if folder.kind.name == "ptx" else ""))
    print(folder.write(t.stable_name, text, text))
    return 0


def _ms(v) -> str:
    return f"{v:9.4f}" if v is not None else "        -"


def _print_run(run, show_internal: bool):
    where = f"quadrants {run.quadrants_version or '?'}, arch {run.arch or run.arch_requested or '?'}"
    print(f"{run.script}  ({where}, {run.seconds:.2f} s)  dumps: {run.dump_dir}")
    hidden = 0
    for k in run.kernels:
        if k.internal and not show_internal:
            hidden += 1
            continue
        loc = f"{k.file}:{k.line}" if k.file else "Quadrants runtime"
        print(f"  {'[internal] ' if k.internal else ''}{k.name}  ({loc}; {len(k.stages)} CHI IR stages)")
        for t in k.tasks:
            sizes = "  ".join(f"{kd} {_size(p)} B" for kd, p in sorted(t.files.items()))
            med = _ms(sorted(t.launches_ms)[len(t.launches_ms) // 2] if t.launches_ms else None)
            print(f"    {t.name:<46} {t.type:<10} {len(t.launches_ms):>5}x  median {med} ms   {sizes}")
    if hidden:
        print(f"  (+ {hidden} Quadrants-internal kernel(s); --all lists them)")


def _size(path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _print_comparison(res, edited, show_internal: bool = False):
    load = res["load"]
    n_gen, n_edit = len(res["generated_runs"]), len(res["edited_runs"])
    print(f"edited run ({load['env']}=1, {load['folder']}), {n_edit} run(s) interleaved with {n_gen} of the "
          f"generated program:")
    for e in load["edits"]:
        print(f"  {e['task']}: edit {e['file']}  {e['state']}{'' if e['known_base'] else ' (no sidecar)'}  "
              f"{'USED' if e.get('used') else 'NOT USED'}: {e['evidence']}")
    print(f"  {'task (* edited)':<46} {'generated':>12} {'edited':>12}  ratio  [95% CI]          floor  verdict")
    hidden = 0
    for r in res["comparison"]:
        if r.get("internal") and not show_internal:
            hidden += 1
            continue
        ratio = f"{r['ratio']:.3f}" if r["ratio"] is not None else "-"
        st = r["stats"]
        ci = f"[{st['ci'][0]:.3f}, {st['ci'][1]:.3f}]" if st and st["ci"][0] is not None else "-"
        floor = f"±{st['noise_floor']:.0%}" if st and st["noise_floor"] is not None else "-"
        verdict = ""
        if st:
            more = st["rounds_needed"]
            verdict = st["verdict"] + (f" ({st['reason']}" + (f"; about {more} more rounds would decide it: "
                                                               f"--rounds {n_edit + more}" if more else "") + ")"
                                       if st["reason"] else "")
        mark = "*" if r["edited"] else " "
        name = ("[internal] " if r.get("internal") else "") + r["task"] + (" (edited)" if r["edited"] else "")
        print(f" {mark}{name:<46} {_ms(r['generated']['median_ms'])} ms {_ms(r['edited_run']['median_ms'])} ms"
              f"  {ratio:<6} {ci:<17} {floor:>6} {verdict}")


    if hidden:
        print(f"  (+ {hidden} task(s) of Quadrants' own kernels, never given a verdict; --all lists them)")


def _print_ours(ours):
    print("under qdexplorer.lang" + (f" (error: {ours['error']})" if ours["error"] else "") + ":")
    for k in ours["kernels"]:
        aside = f"; set aside Quadrants' bound-only {', '.join(k['set_aside'])}" if k["set_aside"] else ""
        print(f"  {k['kernel']}: task lists {'MATCH' if k['match'] else 'DIFFER'}{aside}")
        for t in k["tasks"]:
            qb = t["quadrants_ptx_bytes"] or t["quadrants_llvm_bytes"]
            kind = "ptx" if t["quadrants_ptx_bytes"] else "ll"
            qr, orr = t["quadrants_registers"], t["ours_registers"]
            print(f"    {t['quadrants'] or '-':<46} {t['ours'] or '-':<40} {t['type']:<10} "
                  f"quadrants {qb or '-'} B {kind}{f', {qr} regs' if qr else ''}, {_ms(t['quadrants_median_ms'])} ms"
                  f" | ours {t['ours_ptx_bytes'] or '-'} B ptx{f', {orr} regs' if orr else ''}, "
                  f"{_ms(t['ours_median_ms'])} ms")
