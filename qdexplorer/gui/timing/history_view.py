"""The history view: one task's median launch time over the project's saved runs.

Regression tracking at a glance: each point is a saved run (oldest left), its whiskers the
run's interquartile range; clicking a point selects that run (`run_selected(id)`), which the
window uses to compare it with the latest one. The view reads the history database itself, in
the GUI thread, with its own connection (SQLite in WAL mode lets a run write meanwhile).
"""
from __future__ import annotations

import datetime
import json

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ...bench.context import RunContext
from .plots import time_unit
from ..task_tree import fmt_time as fmt_ms
from ...wording import plural

NO_RUNS = "No saved runs yet: Bench saves one."
STATUS_BRUSH = {"complete": "#1565c0", "stopped": "#ef6c00", "failed": "#c62828", "interrupted": "#9e9e9e",
                "running": "#9e9e9e"}


CLOCK_DRIFT = 0.10   # SM clocks further apart than this (while timing) make runs hard to compare
OTHER_SETUP = "t"    # the symbol of a run recorded on another device, driver or clock (a triangle)
LEGEND = [("●", "median of a saved run"), ("┿", "whiskers: its middle half of launches (25–75%)"),
          ("▼", "another device, driver or clock than the reference")]


def setup_of(context: RunContext) -> dict:
    """What a run was measured on, as far as timings depend on it: the device (or backend), the
    driver, and the busy SM clock while timing (None where not sampled: the CPU, older runs)."""
    return {"device": context.device or context.backend, "driver": str(context.driver or ""),
            "sm_mhz": (context.clocks_mhz or {}).get("sm")}


def setup_differences(setup: dict, ref: dict) -> list[str]:
    """How `setup` differs from the reference run's (empty: comparable)."""
    out = []
    if setup["device"] != ref["device"]:
        out.append(f"device {setup['device'] or '?'} (not {ref['device'] or '?'})")
    if setup["driver"] and ref["driver"] and setup["driver"] != ref["driver"]:
        out.append(f"driver {setup['driver']} (not {ref['driver']})")
    a, b = setup["sm_mhz"], ref["sm_mhz"]
    if a and b and abs(a - b) > CLOCK_DRIFT * b:
        out.append(f"SM clock {a:.0f} MHz (not {b:.0f})")
    return out


class HistoryView(QWidget):
    run_selected = Signal(int)       # a saved run's id

    def __init__(self, parent=None):
        super().__init__(parent)
        self.history = None
        self.points: list[dict] = []
        self.measure = "wall"
        head = QHBoxLayout()
        self.task = QComboBox()
        self.task.setMinimumWidth(320)
        self.task.currentTextChanged.connect(lambda t: t and self.show_task(t))
        self.refresh_btn = QPushButton("Refresh")
        self.refresh_btn.clicked.connect(self.refresh)
        self.info = QLabel(NO_RUNS)
        self.info.setTextInteractionFlags(Qt.TextSelectableByMouse)
        head.addWidget(QLabel("Task"))
        head.addWidget(self.task)
        head.addWidget(self.refresh_btn)
        head.addWidget(self.info, 1)
        self.plot = pg.PlotWidget(title="median launch time over saved runs")
        self.plot.setLabel("left", "ms per launch")
        self.plot.getAxis("left").enableAutoSIPrefix(False)   # the unit comes from the data: no "(x0.001)"
        self.unit = ("ms", 1.0)
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.curve = self.plot.plot([], [], pen=pg.mkPen("#90a4ae", width=1.5))
        self.whiskers = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), pen=pg.mkPen("#607d8b"))
        self.plot.addItem(self.whiskers)
        self.reference: int | None = None      # the run others are checked against (selected, else the latest)
        self.tips: dict[int, str] = {}
        self.scatter = pg.ScatterPlotItem(size=12, hoverable=True, hoverSize=15,
                                          tip=lambda x, y, data: self.tips.get(data, ""))
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        # what the marks mean (the whiskers had no key: issue 42), above the plot: over it, it hid points
        self.legend = QLabel("   ".join(f"{mark} {name}" for mark, name in LEGEND))
        self.legend.setTextFormat(Qt.PlainText)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(head)
        lay.addWidget(self.legend)
        lay.addWidget(self.plot, 1)

    def clear(self):
        """Another project: none of this one's points stay on show."""
        self.history, self.points, self.reference, self.tips = None, [], None, {}
        self.task.blockSignals(True)
        self.task.clear()
        self.task.blockSignals(False)
        self.curve.setData([], [])
        self.whiskers.setData(x=np.zeros(0), y=np.zeros(0), top=np.zeros(0), bottom=np.zeros(0))
        self.scatter.setData([])
        self.plot.getAxis("bottom").setTicks(None)
        self.plot.setTitle("median launch time over saved runs")
        self.info.setText(NO_RUNS)

    def set_history(self, history):
        """`history` is a `bench.history.History` (the view reads it, never writes)."""
        self.history = history
        self.refresh()

    def refresh(self):
        if self.history is None:
            return
        current = self.task.currentText()
        tasks = self.history.tasks()
        self.task.blockSignals(True)
        self.task.clear()
        self.task.addItems(tasks)
        self.task.blockSignals(False)
        if tasks:
            self.task.setCurrentText(current if current in tasks else tasks[0])
            self.show_task(self.task.currentText())

    def show_task(self, task: str):
        if self.history is None:
            return
        summaries = {s.id: s for s in self.history.list()}
        self.points = []
        for rid, label, created, _median, n in self.history.task_history(task):
            rows = self.history.db.execute("SELECT ms, cpu_ms FROM launches WHERE run_id = ? AND task = ?",
                                           (rid, task)).fetchall()
            cpu = [c for _, c in rows if c is not None]
            s = summaries[rid]
            ctx = self.history.db.execute("SELECT context FROM runs WHERE id = ?", (rid,)).fetchone()[0]
            self.points.append({"id": rid, "label": label, "created": created, "n": n, "status": s.status,
                                "setup": setup_of(RunContext.from_dict(json.loads(ctx))),
                                "backend": s.backend, "git": s.git, "wall": np.array([w for w, _ in rows]),
                                "cpu": np.array(cpu) if len(cpu) == len(rows) else None})
        # the metric comparisons use: CPU time when every run has it (CPU backend), else launch time
        self.measure = "cpu" if self.points and all(p["cpu"] is not None for p in self.points) else "wall"
        for p in self.points:
            xs = p[self.measure]
            p["median"] = float(np.median(xs))
            p["q1"], p["q3"] = np.percentile(xs, [25, 75])
        self.unit = unit, k = time_unit(max((p["q3"] for p in self.points), default=0.0))
        self.plot.setLabel("left", f"{'CPU time' if self.measure == 'cpu' else 'time'} per launch ({unit})")
        x = np.arange(len(self.points), dtype=float)
        y = np.array([p["median"] for p in self.points]) * k
        self.curve.setData(x, y)
        self.whiskers.setData(x=x, y=y, top=np.array([p["q3"] for p in self.points]) * k - y,
                              bottom=y - np.array([p["q1"] for p in self.points]) * k, beam=0.15)
        self.plot.setTitle(f"{task}: median over {plural(len(self.points), 'saved run')}")
        self._mark()

    def _mark(self):
        """Points and ticks: a run recorded on another device, driver or SM clock than the reference
        (the selected run, else the latest) is a triangle, its tick says '≠', and hovering says how."""
        ids = [p["id"] for p in self.points]
        ref = next((p for p in self.points if p["id"] == self.reference), self.points[-1] if self.points else None)
        k = self.unit[1]
        self.tips, spots, ticks, other = {}, [], [], 0
        for xx, p in enumerate(self.points):
            diff = setup_differences(p["setup"], ref["setup"]) if ref is not None else []
            other += bool(diff)
            self.tips[p["id"]] = (f"{p['label']}: median {fmt_ms(p['median'])}, {p['setup']['device'] or p['backend']}"
                                  + ("".join(f"\n≠ {d}" for d in diff) if diff else ""))
            spots.append({"pos": (xx, p["median"] * k), "data": p["id"], "symbol": OTHER_SETUP if diff else "o",
                          "brush": pg.mkBrush(STATUS_BRUSH.get(p["status"], "#1565c0")),
                          "pen": pg.mkPen("#c62828", width=2) if diff else None})
            ticks.append((xx, f"{p['label']} ≠" if diff else p["label"]))
            p["other_setup"] = diff
        self.scatter.setData(spots)
        self.plot.getAxis("bottom").setTicks([ticks])
        if not ids:
            self.info.setText("this task is in no saved run")
            return
        note = (f"; {plural(other, 'run')} marked △ ≠ were recorded on another device, driver or clock than "
                f"{ref['label']} (hover for which)" if other else "")
        self.info.setText(f"{plural(len(self.points), 'run')}; click a point to select its run{note}")

    def _clicked(self, _item, points, *_):
        if len(points):
            self.select_run(int(points[0].data()))

    def select_run(self, run_id: int):
        p = next((p for p in self.points if p["id"] == run_id), None)
        if p is None:
            return
        when = datetime.datetime.fromtimestamp(p["created"]).strftime("%Y-%m-%d %H:%M")
        what = "CPU time" if self.measure == "cpu" else "time"
        self.reference = run_id      # the others are now checked against this one
        self._mark()
        other = sum(bool(q["other_setup"]) for q in self.points)
        self.info.setText(f"<b>{p['label']}</b> (#{p['id']}, {when}, {p['setup']['device'] or p['backend']}, "
                          f"{p['status']}{', git ' + p['git'] if p['git'] else ''}): median {what} "
                          f"{fmt_ms(p['median'])} over {plural(p['n'], 'launch')}"
                          + (f"; {plural(other, 'run')} marked △ ≠ differ in device, driver or clock" if other else ""))
        self.run_selected.emit(run_id)
