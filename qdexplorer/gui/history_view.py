"""The history view: one task's median launch time over the project's saved runs.

Regression tracking at a glance: each point is a saved run (oldest left), its whiskers the
run's interquartile range; clicking a point selects that run (`run_selected(id)`), which the
window uses to compare it with the latest one. The view reads the history database itself, in
the GUI thread, with its own connection (SQLite in WAL mode lets a run write meanwhile).
"""
from __future__ import annotations

import datetime

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from .plots import time_unit
from .task_tree import fmt_time as fmt_ms

NO_RUNS = "No saved runs yet: Bench saves one."
STATUS_BRUSH = {"complete": "#1565c0", "stopped": "#ef6c00", "failed": "#c62828", "interrupted": "#9e9e9e",
                "running": "#9e9e9e"}


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
        self.scatter = pg.ScatterPlotItem(size=12, hoverable=True, hoverSize=15)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(head)
        lay.addWidget(self.plot, 1)

    def clear(self):
        """Another project: none of this one's points stay on show."""
        self.history, self.points = None, []
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
            self.points.append({"id": rid, "label": label, "created": created, "n": n, "status": s.status,
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
        self.scatter.setData([{"pos": (xx, yy), "data": p["id"], "brush": pg.mkBrush(STATUS_BRUSH.get(p["status"],
                                                                                                        "#1565c0"))}
                              for xx, yy, p in zip(x, y, self.points)])
        self.plot.getAxis("bottom").setTicks([[(xx, p["label"]) for xx, p in zip(x, self.points)]])
        self.plot.setTitle(f"{task}: median over {len(self.points)} saved run(s)")
        self.info.setText(f"{len(self.points)} run(s); click a point to select its run" if self.points
                          else "this task is in no saved run")

    def _clicked(self, _item, points, *_):
        if len(points):
            self.select_run(int(points[0].data()))

    def select_run(self, run_id: int):
        p = next((p for p in self.points if p["id"] == run_id), None)
        if p is None:
            return
        when = datetime.datetime.fromtimestamp(p["created"]).strftime("%Y-%m-%d %H:%M")
        what = "CPU time" if self.measure == "cpu" else "time"
        self.info.setText(f"<b>{p['label']}</b> (#{p['id']}, {when}, {p['backend']}, {p['status']}"
                          f"{', git ' + p['git'] if p['git'] else ''}): median {what} {fmt_ms(p['median'])} "
                          f"over {p['n']} launches")
        self.run_selected.emit(run_id)
