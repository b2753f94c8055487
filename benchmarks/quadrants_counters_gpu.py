"""Counters for a real Quadrants program's task through the bridge, on a GPU with ncu: the saxpy task of
tests/quadrants/programs/demo_kernels.py with the PTX Quadrants generates, then with a
`QUADRANTS_LOAD_PTX` edit that splits the task's FMA into a multiply and an add (`split_fma`: one warp
instruction more per element, FFMA gone from the instruction mix, FMUL and FADD in its place).

    python benchmarks/quadrants_counters_gpu.py OUT [--preset full] [--n 1048576]

It makes the reports with the bridge's own steps (`quadrants/task_counters.prepare`, `make_report`) and
writes them to OUT with the task's dump files, so they can be read where `ncu-report` is installed (the
GPU machine may lack it): `--read OUT` reads them with `read_profile` and prints the A/B as JSON. When
ncu-report is importable here, the reading happens at once.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from qdexplorer.counters import probe as P  # noqa: E402
from qdexplorer.counters.diff import diff  # noqa: E402
from qdexplorer.quadrants.edits import EditFolder  # noqa: E402
from qdexplorer.quadrants.model import run_from_dict  # noqa: E402
from qdexplorer.quadrants.program import run_program  # noqa: E402
from qdexplorer.quadrants.task_counters import make_report, prepare, read_profile  # noqa: E402

PROGRAM = ROOT / "tests" / "quadrants" / "programs" / "demo_kernels.py"
TASK = "saxpy_kernel_1_range_for"   # Quadrants' kernel_0 is a serial task that computes the loop's bounds
_FMA = re.compile(r"^(\s*)fma\.rn(\.ftz)?\.f32\s+(%\w+),\s*(%\w+),\s*(%\w+),\s*(%\w+);", re.M)


def split_fma(ptx: str) -> str:
    """Each f32 FMA as a multiply then an add, rounded twice (Quadrants 1.3.3's saxpy module has one).
    Checked on the H200 dump in tests/quadrants/data/saxpy_cuda_dump."""
    out, n = _FMA.subn(lambda m: f"{m[1]}mul.rn{m[2] or ''}.f32 \t{m[3]}, {m[4]}, {m[5]};\n"
                                 f"{m[1]}add.rn{m[2] or ''}.f32 \t{m[3]}, {m[3]}, {m[6]};", ptx)
    if not n:
        raise ValueError("no f32 FMA in this PTX to split")
    return out


def make(out: Path, preset: str, n: int) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    cap = P.probe(None, "cuda")
    doc: dict = {"probe": [cap.state, cap.message, cap.version], "preset": preset, "n": n}
    if not (cap.ok or (cap.state == P.NO_READER and cap.ncu)):   # reports are read where the reader is
        return doc
    args = [str(n), "2"]
    t0 = time.perf_counter()
    base = run_program(PROGRAM, args, arch="cuda", dump_dir=out / "dump")
    doc["baseline"] = {"seconds": time.perf_counter() - t0, "error": base.error, "arch": base.arch,
                       "tasks": [t.name for t in base.tasks(include_internal=False)]}
    (out / "baseline.json").write_text(json.dumps(base.to_dict()))
    if not base.ok:
        return doc
    t = base.task(TASK)
    edits = EditFolder(out / "edits", "ptx")
    gen = Path(t.files["ptx"]).read_text().replace("\x00", "")
    edits.write(t.stable_name, split_fma(gen), gen)
    for side, folder in (("generated", None), ("edited", edits.folder)):
        work = out / side
        work.mkdir(exist_ok=True)
        prep = prepare(PROGRAM, base, TASK, args, preset, folder, cap.version, work)
        t0 = time.perf_counter()
        res, passes, shown = make_report(PROGRAM, prep, args, preset, cap.ncu, work)
        doc[side] = {"state": res.state, "message": res.message, "warnings": res.warnings, "passes": passes,
                     "wall_s": time.perf_counter() - t0, "task": prep.task, "target": prep.target,
                     "shown": str(shown), "report": str(work / "report.ncu-rep")}
        shutil.rmtree(work / "load", ignore_errors=True)
    return doc


def read(out: Path) -> dict:
    doc = json.loads((out / "made.json").read_text())
    old = str(Path(doc["baseline_dump"]).parent) if "baseline_dump" in doc else None
    base = run_from_dict(json.loads((out / "baseline.json").read_text()), (old, str(out)) if old else None)
    args = [str(doc["n"]), "2"]
    recs = {}
    for side, folder in (("generated", None), ("edited", out / "edits")):
        d = doc[side]
        if d["state"] != "ok":
            recs[side] = None
            continue
        work = out / f"read-{side}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        prep = prepare(PROGRAM, base, TASK, args, doc["preset"], folder, doc["probe"][2], work)
        from qdexplorer.counters.collect import CountersResult
        res = read_profile(CountersResult(TASK, doc["preset"], "ok"), prep, out / side / "report.ncu-rep",
                           Path(d["shown"]), d["passes"], doc["probe"][2], side)
        recs[side] = res.record
        d["read"] = res.state if res.record is None else "ok"
        d["read_message"] = res.message
    a, b = recs["generated"], recs["edited"]
    if a is not None and b is not None:
        doc["diff"] = {r.key: [r.a, r.b] for r in diff(a, b) if not r.key.startswith("stall:")}
        doc["lines_a"] = len(a.ptx_lines)
        doc["lines_b"] = len(b.ptx_lines)
        doc["line_mapping"] = [a.line_mapping, b.line_mapping]
    return doc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--preset", default="full")
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--read", action="store_true", help="read reports made earlier in OUT")
    a = ap.parse_args()
    out = Path(a.out).resolve()
    if not a.read:
        try:
            doc = make(out, a.preset, a.n)
        except Exception:  # noqa: BLE001 - on the GPU machine, say what broke and keep what was made
            import traceback
            doc = {"error": traceback.format_exc()}
        doc["baseline_dump"] = str(out / "dump")
        (out / "made.json").write_text(json.dumps(doc, indent=2))
        try:
            import ncu_report  # noqa: F401
        except ImportError:
            print(json.dumps(doc, indent=2))
            return
        if "edited" not in doc:
            print(json.dumps(doc, indent=2))
            return
    print(json.dumps(read(out), indent=2, default=str))


if __name__ == "__main__":
    main()
