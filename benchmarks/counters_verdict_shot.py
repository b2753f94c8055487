"""The Counters tab's A/B verdicts drawn from figures measured on a GPU, offscreen, without ncu:

    QT_QPA_PLATFORM=offscreen python benchmarks/counters_verdict_shot.py FIGURES.json OUTDIR

FIGURES.json: what tests/counters/test_gpu.py writes to $QDX_COUNTERS_FIGURES (each figure's
repeats, "A" and "B", under "noop" and "double_loads"), or tests/counters/data/h200_copy_repeats.json
(the H200 run of 2026-12-02: the no-op's 3 + 3 repeats; the doubled loads as one profile a side).
Each A/B goes through the window's own `CountersView.show_ab` and `counters.diff`: the table, the
verdicts and their tooltips are what the window shows for those profiles. Only figures travel in
that file (no stalls, lines or roofline), so those panes stay empty. Writes counters_verdict_<ab>.png
and prints each table as JSON.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
TASK = "copy_kernel_0_range_for"


def sides(block: dict) -> tuple[list, list]:
    """A's and B's repeats as records, from {figure: {"A": [...], "B": [...]}} or {"generated": {...},
    "doubled": {...}} (one profile a side)."""
    from qdexplorer.counters.record import TaskCounters
    if "generated" in block and "doubled" in block:
        series = {k: {"A": [v], "B": [block["doubled"][k]]} for k, v in block["generated"].items()}
    else:
        series = {k: v for k, v in block.items() if isinstance(v, dict) and "A" in v}

    def recs(which, variant):
        n = max(len(v[which]) for v in series.values())
        figs = [{k: float(v[which][i]) for k, v in series.items() if not k.startswith("stall:") and i < len(v[which])}
                for i in range(n)]
        stalls = [{k[6:]: float(v[which][i]) for k, v in series.items() if k.startswith("stall:") and i < len(v[which])}
                  for i in range(n)]
        return [TaskCounters(TASK, "full", figures=f, stalls=s, variant=variant, device="NVIDIA H200",
                             ncu_version="2025.3.1.0") for f, s in zip(figs, stalls)]
    return recs("A", "generated"), recs("B", "edited.ptx")


def main() -> int:
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from qdexplorer.counters.collect import CountersResult
    from qdexplorer.gui.counters_view import CountersView
    from qdexplorer.gui.theme import apply_theme
    apply_theme("light")
    doc = json.loads(src.read_text())
    shown = {}
    for name in ("noop", "double_loads"):
        if name not in doc:
            continue
        a, b = sides(doc[name])
        view = CountersView()
        view.resize(1250, 760)
        view.set_task(TASK)
        view.preset.setCurrentText("full")
        view.repeats.setValue(min(len(a), len(b)))
        view.show_ab(CountersResult(TASK, "full", "ok", record=a[0], repeats=a),
                     CountersResult(TASK, "full", "ok", record=b[0], repeats=b))
        view.show()
        view.table.parentWidget().setSizes([720, 0])   # the table: these figures carry no lines or roofline
        for _ in range(20):
            app.processEvents()
        t = view.table
        shown[name] = {"status": view.status.text(),
                       "rows": [[t.item(i, j).text() for j in range(6)] for i in range(t.rowCount())]}
        if not view.grab().save(str(out / f"counters_verdict_{name}.png")):
            print(f"could not write {out}", file=sys.stderr)
            return 1
        view.close()
    print(json.dumps(shown, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
