"""Generated vs a deliberately slowed PTX override of one demo task, interleaved on the GPU.

The acceptance check of the A/B comparison: the slowed task must come out `slower` (ratio CI
above 1) and every other task `same` or `unsure` (never `slower` or `faster`). The override is the generated PTX with a `nanosleep` at
the top of the entry (sm_70+: it cannot be optimised away), written as a real project override
in a copy of the demo. Prints the table and a JSON document; with PySide6 available (see
/work/shared/tools/gui-on-gpu.md) it also saves the comparison view's screenshot and chart.

    python benchmarks/compare_override.py [--task T] [--sleep-ns N] [--rounds R] [--out DIR] [--backend cuda]
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

from _common import machine

DEFAULT_TASK = "saxpy_kernel_0_range_for"


def slowed_ptx(ptx: str, task: str, sleep_ns: int) -> str:
    """`ptx` with every thread of `task`'s entry sleeping `sleep_ns` first (nanosleep, PTX 6.3, sm_70+)."""
    m = re.search(r"\.entry\s+" + re.escape(task) + r"\s*\(.*?\)\s*\{", ptx, re.S)
    if m is None:
        raise ValueError(f"no .entry {task} in the PTX")
    return ptx[:m.end()] + f"\n\t// deliberately slowed by qdexplorer's compare_override benchmark\n" \
                           f"\tnanosleep.u32 {int(sleep_ns)};\n" + ptx[m.end():]


def screenshot(cmp, ra, rb, out_dir: str, task: str) -> dict:
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as e:
        return {"screenshot": f"skipped: PySide6 unavailable ({e}); see /work/shared/tools/gui-on-gpu.md"}
    from qdexplorer.gui.timing.compare_view import CompareView
    app = QApplication.instance() or QApplication([])
    view = CompareView()
    view.resize(1500, 900)
    view.show()
    view.show_comparison(cmp, ra, rb)
    view.select_task(task)
    for _ in range(20):
        app.processEvents()
    shot = os.path.join(out_dir, "compare_view.png")
    view.grab().save(shot)
    chart = view.export_chart(os.path.join(out_dir, "compare_chart.png"))
    view.export_chart(os.path.join(out_dir, "compare_chart.svg"))
    view.export_numbers(os.path.join(out_dir, "compare.csv"))
    return {"screenshot": shot, "chart": str(chart)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default=DEFAULT_TASK)
    ap.add_argument("--sleep-ns", type=int, default=20000, help="nanosleep per thread in the slowed override")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--per-round", type=int, default=10)
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--workload", action="append", help="default: every workload that runs on the backend")
    ap.add_argument("--out", default=os.environ.get("OUT", "out"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    from qdexplorer.bench.compare import compare_runs
    from qdexplorer.bench.runner import Side, interleaved
    from qdexplorer.engine import Engine
    from qdexplorer.project.loader import bundled_demo

    proj = os.path.join(tempfile.mkdtemp(prefix="qdx-cmp-"), "demo")
    shutil.copytree(bundled_demo(), proj)  # overrides go into the copy, never into the package
    with Engine(proj, backend=a.backend) as eng:
        _, compiled = eng.compile(target="nvptx")
        ct = next(c for c in compiled if c.task == a.task)
        eng.set_override(a.task, slowed_ptx(ct.ptx, a.task, a.sleep_ns))
        gen = Side("generated", eng, {"hide_overrides": a.task})
        ovr = Side("override", eng)
        ra, rb = interleaved(gen, ovr, a.workload, rounds=a.rounds, per_round=a.per_round)
    cmp = compare_runs(ra, rb)
    print(cmp.table(), file=sys.stderr)
    row = cmp.task(a.task)
    others = [t for t in cmp.tasks if t.task != a.task]
    doc = {"benchmark": "compare_override", "task": a.task, "sleep_ns": a.sleep_ns, "rounds": a.rounds,
           "per_round": a.per_round, "backend": a.backend, "table": cmp.table(), "comparison": cmp.to_dict(),
           "slowed_task_verdict": row.verdict, "slowed_task_ratio": row.ratio, "slowed_task_ci": list(row.ci),
           "other_verdicts": {t.task: t.verdict for t in others},
           "ok": row.verdict == "slower" and row.ci[0] > 1 and all(t.verdict in ("same", "unsure") for t in others),
           "status": {"generated": ra.status, "override": rb.status, "messages": [ra.message, rb.message]},
           "machine": machine()}
    doc.update(screenshot(cmp, ra, rb, a.out, a.task))
    with open(os.path.join(a.out, "compare_override.json"), "w") as fh:
        json.dump(doc, fh, indent=2)
    print(json.dumps(doc, indent=2))
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
