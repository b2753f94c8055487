"""The Quadrants bridge's comparison, repeated: one task's PTX edited, the rest must never move.

The issue's GPU check. Exports the generated PTX of one task of tests/quadrants/programs/
demo_kernels.py, puts a `membar.gl;` before each `ret;` of its entry (a small, real change), then
runs `qdexplorer quadrants --load-ptx DIR --rounds R --json` COMPARISONS times and counts, per
task, the verdicts: the untouched tasks must never come out `faster` or `slower`. Then `--ours`
once: every qdexplorer task must show a nonzero time. Prints one JSON document; exit 1 when either
check fails. Needs CUDA and Quadrants.

Usage: python benchmarks/quadrants_bridge_check.py [--comparisons 5] [--rounds 5] [--task T] [-- ARGS]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "quadrants", "programs", "demo_kernels.py")


def qdx(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "qdexplorer.cli", "quadrants", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=1800)


def with_membar(ptx: str, task: str) -> str:
    """`ptx` with `membar.gl;` before every `ret;` of `task`'s entry."""
    # Quadrants' CUDA entries carry a per-process counter (saxpy_c60_0_kernel_1_range_for); the
    # stable name drops it, as the bridge's own comparison rows do
    entries = list(re.finditer(r"\.entry\s+([\w$]+)\s*\(", ptx))
    m = next((e for e in entries if re.sub(r"_c\d+_\d+_kernel_", "_kernel_", e.group(1)) == task), None)
    if m is None:
        raise ValueError(f"no .entry {task} in the PTX (entries: {[e.group(1) for e in entries][:5]})")
    end = ptx.find(".entry", m.end())
    end = len(ptx) if end < 0 else end
    body = re.sub(r"^(\s*)ret;", r"\1membar.gl;\n\1ret;", ptx[m.start():end], flags=re.M)
    return ptx[:m.start()] + body + ptx[end:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--comparisons", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--task", default="saxpy_kernel_1_range_for")
    ap.add_argument("args", nargs="*", default=[str(1 << 22), "20"], help="the program's arguments (N REPEAT)")
    a = ap.parse_args()
    edits = tempfile.mkdtemp(prefix="qdx-bridge-edits-")
    p = qdx(PROGRAM, "--arch", "cuda", "--load-ptx", edits, "--export", a.task, "--", *a.args)
    if p.returncode:
        print(p.stdout, p.stderr, file=sys.stderr)
        return 1
    path = p.stdout.strip()
    with open(path) as fh:
        ptx = fh.read()
    with open(path, "w") as fh:
        fh.write(with_membar(ptx, a.task))
    verdicts: dict[str, dict[str, int]] = {}
    ratios: dict[str, list] = {}
    for i in range(a.comparisons):
        p = qdx(PROGRAM, "--arch", "cuda", "--load-ptx", edits, "--rounds", a.rounds, "--json", "--", *a.args)
        doc = json.loads(p.stdout)
        if p.returncode or not doc.get("comparison"):
            print(p.stderr[-4000:], file=sys.stderr)
            return 1
        for row in doc["comparison"]:
            name = row["stable_name"] + (" (edited)" if row["edited"] else "")
            v = row["stats"]["verdict"] if row["stats"] else "no launches on one side"
            verdicts.setdefault(name, {}).setdefault(v, 0)
            verdicts[name][v] += 1
            ratios.setdefault(name, []).append(None if row["ratio"] is None else round(row["ratio"], 4))
        print(f"comparison {i + 1}/{a.comparisons} done", file=sys.stderr)
    untouched_wrong = {t: v for t, v in verdicts.items() if "(edited)" not in t and (v.get("faster") or v.get("slower"))}
    p = qdx(PROGRAM, "--arch", "cuda", "--ours", "--json", "--", *a.args)
    ours = json.loads(p.stdout).get("ours") or {}
    ours_ms = {t["ours"]: t["ours_median_ms"] for k in ours.get("kernels", []) for t in k["tasks"] if t["ours"]}
    ok = not untouched_wrong and bool(ours_ms) and all(ms and ms > 0 for ms in ours_ms.values())
    print(json.dumps({"benchmark": "quadrants_bridge_check", "task": a.task, "edit": "membar.gl before ret",
                      "comparisons": a.comparisons, "rounds": a.rounds, "args": a.args, "verdicts": verdicts,
                      "ratios": ratios, "untouched_faster_or_slower": untouched_wrong, "ours_median_ms": ours_ms,
                      "ours_error": ours.get("error"), "ok": ok}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
