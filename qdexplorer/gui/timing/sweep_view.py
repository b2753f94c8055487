"""The Sweep panel: every variant of block_dim and fast_math timed on N devices, as a heat map.

The sweep itself is `bench.sweep.sweep`, run as one job on the engine lane, so nothing else drives
the window's engine meanwhile; with N > 1 the job builds N-1 more engines of the same project on
the same cluster (one Ray actor each) and closes them after. The heat map is a colored table, not
a plot: a task × variant grid reads best as numbers (ratio to the default, below 1 is faster),
with the best variant per task starred and every cell's median, interval and verdict in its tooltip.
Saved sweeps are read back from the project's history (`load_sweep`).
"""
from __future__ import annotations

import math
import threading
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...bench.history import History
from ...bench.sweep_counters import VariantCounters, variant_counters
from ...bench.sweep import SweepResult, load_sweep, parse_over, project_defaults, saved_sweeps, sweep
from ...engine import Engine
from ...events import ProjectOpened
from ...project.data_folder import history_path
from ..services import WindowServices
from ..plumbing.workers import error_text
from ...wording import plural

BEST_MARK = "★"


def ratio_color(ratio: float) -> QColor:
    """Green below 1 (faster than the default), red above, white at 1; grey where nothing ran.
    The scale saturates at ±30%: a sweep's differences are mostly within that."""
    if math.isnan(ratio):
        return QColor(220, 220, 220)
    x = max(-1.0, min(1.0, math.log(ratio) / math.log(1.3)))
    fade = int(255 * (1 - abs(x) * 0.7))
    return QColor(fade, 255, fade) if x < 0 else QColor(255, fade, fade)


class HeatMap(QTableWidget):
    """Tasks × variants, each cell the ratio to the default on the same device."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setEditTriggers(QTableWidget.NoEditTriggers)
        self.result: SweepResult | None = None

    def show_result(self, result: SweepResult, counters: list[VariantCounters] | None = None) -> None:
        self.result = result
        per = {(c.task, c.variant): c for c in counters or []}
        tasks, labels, grid = result.heatmap()
        cells = result.cells()
        self.clear()
        self.setRowCount(len(tasks))
        self.setColumnCount(len(labels))
        self.setVerticalHeaderLabels(tasks)
        # one setting per header line: a column is as wide as its number, not as its whole label
        self.setHorizontalHeaderLabels([lb.replace(",", "\n") + ("\n(default)" if lb == result.default.label else "")
                                        for lb in labels])
        bold = QFont()
        bold.setBold(True)
        for i, task in enumerate(tasks):
            best = result.best(task)
            for j, label in enumerate(labels):
                ratio = grid[i][j]
                is_best = best is not None and best.variant == label
                text = "—" if math.isnan(ratio) else f"{ratio:.3f}"
                item = QTableWidgetItem((BEST_MARK + " " if is_best else "") + text)
                item.setTextAlignment(Qt.AlignCenter)
                item.setBackground(QBrush(ratio_color(ratio)))
                item.setForeground(QBrush(QColor(0, 0, 0)))
                if is_best:
                    item.setFont(bold)
                item.setToolTip(cell_tip(task, label, [c for c in cells if c.task == task and c.variant == label],
                                         per.get((task, label))))
                self.setItem(i, j, item)
        self.resizeColumnsToContents()


def cell_tip(task: str, variant: str, cells: list[Any], counters: VariantCounters | None = None) -> str:
    """Every device's measurement of one task under one variant, one line each; its counters after."""
    if not cells:
        return f"{task} · {variant}: not run"
    lines = [f"{task} · {variant}"]
    for c in cells:
        ci = "" if math.isnan(c.ci[0]) else f", 95% CI [{c.ci[0]:.3f}, {c.ci[1]:.3f}]"
        ratio = "" if math.isnan(c.ratio) else f", ratio {c.ratio:.3f}"
        lines.append(f"{c.device}: median {c.median_ms:.4f} ms{ratio}{ci}, {c.verdict}" + (" — best" if c.best else "")
                     + (f" ({c.reason})" if getattr(c, "reason", "") and c.verdict == "unsure" else ""))
    if counters is not None:
        figures = zip(COUNTER_COLUMNS, counter_cells(counters))
        lines.append("counters: " + ", ".join(f"{label} {text}" for label, text in figures if text != "–"))
    return "\n".join(lines)


COUNTER_COLUMNS = ("achieved occ.", "theoretical occ.", "registers", "SM", "memory", "kernel µs")


def counter_cells(r: VariantCounters) -> list[str]:
    """The figures the CLI's `sweep --counters` table prints, as the same text."""
    def f(x: float | None, unit: str = "") -> str:
        return "–" if x is None else f"{x:.2f}" if unit == "us" else f"{x:.0f}{unit}"
    return [f(r.occ_achieved, "%"), f(r.occ_theoretical, "%"), f(r.registers), f(r.sm_pct, "%"), f(r.mem_pct, "%"),
            f(r.duration_us, "us")]


class CountersTable(QTableWidget):
    """Task × variant rows with one profiled launch's figures each, beside the heat map's times: what a
    block size changes (occupancy, registers) next to what it gained. Without counters the rows keep
    ptxas's registers and theoretical occupancy, and the reason is said once, above."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setEditTriggers(QTableWidget.NoEditTriggers)
        self.rows: list[VariantCounters] = []

    def show_rows(self, rows: list[VariantCounters]) -> None:
        self.rows = rows
        self.clear()
        self.setRowCount(len(rows))
        self.setColumnCount(2 + len(COUNTER_COLUMNS))
        self.setHorizontalHeaderLabels(["task", "variant", *COUNTER_COLUMNS])
        for i, r in enumerate(rows):
            for j, text in enumerate([r.task, r.variant, *counter_cells(r)]):
                item = QTableWidgetItem(text)
                if j >= 2:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if r.state != "ok":
                    item.setToolTip(f"no counters: {r.message}" + (" (registers and theoretical occupancy from ptxas)"
                                                                   if j in (3, 4) else ""))
                self.setItem(i, j, item)
        self.resizeColumnsToContents()
        self.setVisible(bool(rows))


class SweepView(QWidget):
    progressed = Signal(int, int)    # emitted from the sweep's threads; Qt queues it to the GUI thread

    def __init__(self, services: WindowServices):
        super().__init__()
        self.services = services
        self.block_dims = QLineEdit("64,128,256")
        self.block_dims.setMinimumWidth(90)
        self.block_dims.setToolTip("block_dim values to try (empty: keep the project's)")
        self.fast_math = QCheckBox("fast_math on/off")
        self.fast_math.setToolTip("also try the other fast_math setting")
        self.devices = QSpinBox()
        self.devices.setRange(1, 64)
        self.devices.setToolTip("devices that measure at once (one Ray actor each); more than 1 needs a cluster")
        self.rounds = QSpinBox()
        self.rounds.setRange(1, 100)
        self.rounds.setValue(3)
        self.rounds.setToolTip("rounds: each runs every variant once, interleaved so drift hits all alike")
        self.start_button = QPushButton("Start sweep")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setEnabled(False)
        self.saved = QComboBox()
        self.saved.setMinimumContentsLength(20)
        self.saved.setToolTip("sweeps saved in this project's history")
        self.counters = QComboBox()
        self.counters.addItems(["no counters", "counters: quick", "counters: full"])
        self.counters.setToolTip("after the sweep, profile one launch of each variant of each task under ncu "
                                 "(as `qdexplorer sweep --counters`): occupancy, registers and throughput beside "
                                 "the times; without ncu, ptxas's registers and theoretical occupancy")
        self.status = QLabel("")
        self.counters_status = QLabel("")
        self.counters_status.setWordWrap(True)
        self.heat = HeatMap()
        self.counters_table = CountersTable()
        self.counters_table.setVisible(False)
        top = QHBoxLayout()
        for label, w in (("block_dim", self.block_dims), ("", self.fast_math), ("devices", self.devices),
                         ("rounds", self.rounds)):
            if label:
                top.addWidget(QLabel(label))
            top.addWidget(w)
        top.addWidget(self.start_button)
        top.addWidget(self.stop_button)
        top.addStretch(1)
        # the saved sweeps beside the status line, not at the end of the settings: one row of both
        # was wider than the bottom pane at 1400 px, and the page (the heat map with it) scrolled sideways
        second = QHBoxLayout()
        self.status.setWordWrap(True)
        second.addWidget(self.status, 1)
        second.addWidget(self.counters)
        second.addWidget(QLabel("saved"))
        second.addWidget(self.saved)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addLayout(second)
        lay.addWidget(self.heat, 2)
        lay.addWidget(self.counters_status)
        lay.addWidget(self.counters_table, 1)
        self._stop = threading.Event()
        self.running = False
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self._stop.set)
        self.saved.activated.connect(lambda _i: self.show_saved(self.saved.currentText()))
        self.progressed.connect(lambda done, total: self.status.setText(f"sweep: {done}/{total} variant turns"))
        services.bridge.event.connect(self._on_event)

    def _on_event(self, ev: Any) -> None:
        if isinstance(ev, ProjectOpened):
            self.refresh_saved(path=ev.path)

    def over_specs(self) -> list[str]:
        specs = [f"block_dim={self.block_dims.text().strip()}"] if self.block_dims.text().strip() else []
        return specs + (["fast_math=on,off"] if self.fast_math.isChecked() else [])

    def start(self) -> None:
        """Run the sweep as one job on the engine lane; the heat map shows it when it returns."""
        if self.running or not self.services.project.path:
            return
        specs, n, rounds = self.over_specs(), self.devices.value(), self.rounds.value()
        workloads = self.services.runs.choice().workloads()   # the Run toolbar's workload, as Run and Bench take it
        preset = self.counters_preset()
        self._stop.clear()
        self.running = True
        self.start_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.status.setText(f"sweep starting on {plural(n, 'device')}…")
        self._first_run = len(self.services.project.session.runs)      # the sweep's runs are set aside when it ends
        self.services.activity.begin("sweep")   # the status bar counts this, not the last Run
        self.services.bridge.submit(self._job, specs, n, rounds, self._stop, self.progressed.emit, preset, workloads,
                                    returned=self._done, errored=self._failed)

    def counters_preset(self) -> str | None:
        return {1: "quick", 2: "full"}.get(self.counters.currentIndex())

    @staticmethod
    def _job(eng: Engine, specs: list[str], n: int, rounds: int, stop: threading.Event, progress,
             preset: str | None = None, workloads: list[str] | None = None
             ) -> tuple[SweepResult, list[VariantCounters] | None]:
        over = parse_over(specs)
        if n > 1 and not eng.cluster:
            raise ValueError(f"{n} devices need a cluster: set Cluster (local starts one here)")
        extra = eng.twins(n - 1)   # every option of the first engine (mode, fast math, block size...)
        history = History(history_path(eng.project.path))
        try:
            result = sweep([eng, *extra], over, project_defaults(eng), workloads=workloads, rounds=rounds,
                           history=history, on_progress=progress, stop=stop)
            if preset is None or stop.is_set():
                return result, None
            return result, variant_counters(eng, result.variants, result.tasks(), preset)
        finally:
            history.close()
            for e in extra:
                e.close()

    def _done(self, out: tuple[SweepResult, list[VariantCounters] | None]) -> None:
        result, counters = out
        self._finish()
        self.heat.show_result(result, counters)
        self.show_counters(counters)
        self.status.setText(f"sweep {result.name}: {plural(len(result.variants), 'variant')} × {plural(len(result.tasks()), 'task')} on "
                            f"{', '.join(result.devices())} ({result.status}); ratio to the default, "
                            f"{BEST_MARK} = best per task (a variant only where clearly faster, else the default)")
        self.refresh_saved(select=result.name)

    def _failed(self, error: Exception) -> None:
        self._finish()
        message = error_text(error)
        self.status.setText(f"sweep failed: {message.splitlines()[0]}")
        self.services.messages.log(f"sweep failed: {message}")

    def _finish(self) -> None:
        session = self.services.project.session
        session.set_aside(session.runs[getattr(self, "_first_run", len(session.runs)):])
        self.services.activity.end()
        self.services.activity.note("sweep finished: its timings are in the heat map; the tree's Launch column "
                                    "keeps the last Run's")
        self.running = False
        self.start_button.setEnabled(True)
        self.stop_button.setEnabled(False)

    def show_counters(self, rows: list[VariantCounters] | None) -> None:
        """The counters table, and in one line above it what they are or why there are none."""
        rows = rows or []
        self.counters_table.show_rows(rows)
        reasons = list(dict.fromkeys(r.message for r in rows if r.state != "ok"))
        if not rows:
            self.counters_status.setText("")
        elif reasons:
            self.counters_status.setText("Counters per variant: no counters: " + "; ".join(reasons)
                                         + " (registers and theoretical occupancy from ptxas)")
        else:
            self.counters_status.setText("Counters per variant: one profiled launch each (occ. = occupancy; "
                                         "kernel µs at ncu's locked clock, compare with other profiles only)")

    def _history(self, project: Any = None) -> History | None:
        project = project or self.services.project.path
        path = history_path(project) if project else None
        return History(path) if path is not None and path.exists() else None

    def refresh_saved(self, select: str | None = None, path: Any = None) -> None:
        """List the project's saved sweeps (a short read of its history file)."""
        history = self._history(path)
        names = []
        if history is not None:
            try:
                names = saved_sweeps(history)
            finally:
                history.close()
        self.saved.clear()
        self.saved.addItems(names)
        if select in names:
            self.saved.setCurrentText(select)

    def show_saved(self, name: str) -> None:
        history = self._history()
        if not name or history is None:
            return
        try:
            result = load_sweep(history, name)
        except Exception as e:  # noqa: BLE001 - a damaged or partial sweep is reported, not fatal
            self.status.setText(f"cannot show {name}: {error_text(e).splitlines()[0]}")
            return
        finally:
            history.close()
        self.heat.show_result(result)
        self.show_counters(None)     # counters are not saved with a sweep: they belong to the run that made them
        self.status.setText(f"saved sweep {name}: {plural(len(result.variants), 'variant')} on {', '.join(result.devices())}")
