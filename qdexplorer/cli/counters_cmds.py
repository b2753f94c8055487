"""`qdexplorer counters PROJECT --task T [--preset quick|full] [--json] [--compare A B]`.

One task's hardware counters from one launch under Nsight Compute, or an A/B of two variants of
its PTX (generated, override, or a .ptx file), figure by figure with the largest changes first.
Where counters cannot be had, it says why in one line and prints what is known without them;
the exit status is then 3, so a script can tell "no counters here" from a bad command (2).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..counters.advice import limiter
from ..counters.collect import CountersResult
from ..counters.diff import diff
from ..counters.text import diff_lines, summary_lines, unavailable_lines, verdict_note
from ..compiler.safe_files import read_input
from ..ir.errors import QdError
from .arg_types import repeats, seconds, seed
from .common import add_project_args, make_engine

EXIT_NO_COUNTERS = 3


def add_commands(sub: Any) -> None:
    c = sub.add_parser("counters", help="hardware counters of one task under Nsight Compute (ncu), or an A/B of "
                       "two variants of its PTX")
    add_project_args(c)
    c.add_argument("--task", required=True, help="the task to profile (see `qdexplorer compile`)")
    c.add_argument("--preset", choices=("quick", "full"), default="quick",
                   help="quick: speed of light, occupancy, launch (about 10 replay passes); full: adds memory, "
                        "warp stalls, instruction mix, roofline, per-line counters (about 20)")
    c.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="two sides: generated, override, current, or a .ptx file")
    c.add_argument("--repeats", type=repeats, metavar="N",
                   help="profiles per side (default: 3 with --compare, so each Δ is called 'changed' or 'noise' "
                        "against the spread of the repeats; 1 otherwise). Each is cached")
    c.add_argument("--fresh", action="store_true", help="profile again even if an unchanged task's profile is cached")
    c.add_argument("--seed", type=seed, default=0, help="the workload's input seed")
    c.add_argument("--timeout", type=seconds, default=180.0, help="seconds ncu may take (default 180)")
    c.add_argument("--ncu", help="the ncu to use (default: PATH, CUDA_HOME, /usr/local/cuda/bin, "
                   "/opt/nvidia/nsight-compute, or $QDEXPLORER_NCU)")


def _side(eng: Any, a: argparse.Namespace, side: str) -> CountersResult:
    reps = a.repeats if a.repeats is not None else (3 if a.compare else 1)
    if reps < 1:
        raise QdError(f"--repeats {reps}: give 1 or more profiles per side")
    if side in ("generated", "override", "current"):
        return eng.counters(a.task, a.preset, side=side, fresh=a.fresh, seed=a.seed, timeout=a.timeout,
                            repeats=reps)
    path = Path(side)
    if not path.is_file():
        raise QdError(f"--compare {side}: not generated, override, current, or a PTX file that exists")
    ptx = read_input(path, 64 << 20, "--compare").decode("utf-8", errors="replace")   # not /dev/zero, not 10 GB
    return eng.counters(a.task, a.preset, side=path.name, ptx=ptx, fresh=a.fresh, seed=a.seed,
                        timeout=a.timeout, repeats=reps)


def _json(res: CountersResult) -> dict[str, Any]:
    d: dict[str, Any] = {"task": res.task, "preset": res.preset, "state": res.state, "message": res.message,
                         "warnings": res.warnings, "seconds": res.seconds, "report": res.report}
    if res.record is not None:
        d["counters"] = res.record.to_json()
        d["limiter"] = limiter(res.record)
    if res.fallback is not None:
        fb = res.fallback
        d["without_counters"] = {"registers": fb.registers, "spill_bytes": fb.spill_bytes,
                                 "occupancy_pct": fb.occupancy_pct, "limited_by": fb.limited_by, "notes": fb.notes,
                                 "model_roofline": vars(fb.roofline) if fb.roofline else None}
    return d


def cmd_counters(a: argparse.Namespace) -> int:
    with make_engine(a) as eng:
        given = a.compare or ["current"]
        results = [_side(eng, a, s) for s in given]
    sides = [s if s in ("generated", "override", "current") else Path(s).name for s in given]
    return print_results(sides, results, a.json)


def print_results(sides: list[str], results: list[CountersResult], as_json: bool) -> int:
    """One profile, or an A/B of two, as `qdexplorer counters` prints them (the Quadrants bridge
    prints its own the same way); the exit status: 0, or 3 when a side has no counters."""
    if as_json:
        out: dict[str, Any] = {"sides": dict(zip(sides, (_json(r) for r in results)))}
        if len(results) == 2 and all(r.ok for r in results):
            out["diff"] = [{"key": r.key, "label": r.label, "unit": r.unit, "a": r.a, "b": r.b, "delta": r.delta,
                            "pct": r.pct, "verdict": r.verdict, "band": r.band, "quantum": r.quantum,
                            "a_repeats": list(r.a_reps), "b_repeats": list(r.b_reps)}
                           for r in diff(results[0].records, results[1].records)]
            out["verdict_rule"] = verdict_note(len(results[0].records), len(results[1].records))
        print(json.dumps(out, indent=2))
    else:
        for side, res in zip(sides, results):
            if len(sides) == 2:
                print(f"== {side} ==")
            for w in res.warnings:
                print(f"warning: {w}", file=sys.stderr)
            lines = summary_lines(res.record) if res.ok and res.record is not None else unavailable_lines(res)
            print("\n".join(lines))
            print()
        if len(results) == 2 and all(r.ok for r in results):
            ra, rb = results[0].records, results[1].records
            print(f"A/B: A = {sides[0]}, B = {sides[1]} (changes first, the largest first)")
            print(f"  ({verdict_note(len(ra), len(rb))})")
            print("\n".join(diff_lines(diff(ra, rb), sides[0][:14], sides[1][:14])))
    return 0 if all(r.ok for r in results) else EXIT_NO_COUNTERS


COMMANDS = {"counters": cmd_counters}
