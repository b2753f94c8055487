"""The comparison view: did B get faster or slower than A, task by task, and is it real?

Top: per-task median bars for A and B (bootstrap whiskers on each median) beside the ratio B/A
with its 95% interval, sorted by impact (milliseconds gained or lost per launch), coloured by
verdict. Bottom: the selected task's two distributions overlaid, and the summary table. The
chart exports as PNG/SVG, the numbers as CSV/JSON. The view takes a `bench.compare.Comparison`
and the two `Run`s; it computes nothing the CLI would not print.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters  # noqa: F401 - registers ImageExporter / SVGExporter

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QScrollArea, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ...bench.run import TOTAL
from ...compiler.safe_files import write_file
from ..plumbing.image_bytes import png_bytes
from ..theme import PLOT, current_theme

COLOR_A, COLOR_B = "#1565c0", "#ef6c00"
A_OFFSET, B_OFFSET, BAR_H = 0.0, 0.22, 0.2   # in rows, from the row's centre; the name sits above A
VERDICT_COLOR = {"slower": "#c62828", "faster": "#2e7d32", "same": "#757575", "unsure": "#b26a00"}
BAND = {"light": (0, 0, 0, 20), "dark": (255, 255, 255, 26)}   # the ±threshold band behind the ratios
CHART_FILTERS = "PNG (*.png);;SVG (*.svg)"
NUMBER_FILTERS = "CSV (*.csv);;JSON (*.json)"
NO_COMPARISON = "No comparison yet: pick two saved runs, or use “Compare with generated” on a task's PTX"
def run_device(summary) -> str:
    """What a saved run was measured on: its device ('NVIDIA H200', a cluster's 'H200 (node-3, GPU 1)'),
    else its backend."""
    return summary.device or summary.backend or "?"


def floor_text(r) -> str:
    floor = getattr(r, "noise_floor", float("nan"))
    return "-" if math.isnan(floor) else f"±{floor:.1%}"


def verdict_tip(r) -> str:
    """Why a verdict, where the table has no room: for `unsure` the reason, the noise floor (what the
    drift between rounds alone can make) and about how many more rounds a side would decide it, as
    `compare` prints them; for the others the change, its interval and p."""
    floor = floor_text(r)
    rounds = f"{r.rounds_a} round{'s' if r.rounds_a != 1 else ''} in A, {r.rounds_b} in B"
    if r.verdict == "unsure":
        more = (f"\nAbout {r.rounds_needed} more round{'s' if r.rounds_needed != 1 else ''} a side would settle it "
                f"(Add rounds, or compare interleaved fresh runs)." if r.rounds_needed else "")
        return (f"unsure: {r.reason or 'the data cannot confirm the change'}.\n"
                f"Noise floor {floor}: changes this small can come from the drift between rounds alone "
                f"({rounds}).{more}")
    text = (f"{r.verdict}: {r.change:+.1%}, 95% CI [{r.ci[0]:.3f}, {r.ci[1]:.3f}], p = {r.p:.2g}; "
            f"noise floor {floor} ({rounds})")
    return text + (f"\n{r.reason}" if r.reason else "")


def ratio_range(ratio, lo, hi, threshold: float) -> tuple[float, float]:
    """The ratio axis: the ratios, 1 and the threshold band always; the intervals too while they keep
    the span within 3x of that, so one noisy task's wide interval does not squash every other row
    (its ends then leave the chart as arrows with their values); room on the right for the labels."""
    core = np.concatenate([ratio, [1.0 - threshold, 1.0 + threshold]])
    core = core[np.isfinite(core)]
    c0, c1 = float(core.min()), float(core.max())
    span = max(c1 - c0, 0.1)
    ends = np.concatenate([lo, hi])
    ends = ends[np.isfinite(ends)]
    x0 = min(c0, max(float(ends.min()) if len(ends) else c0, c0 - span))
    x1 = max(c1, min(float(ends.max()) if len(ends) else c1, c1 + span))
    full = x1 - x0
    return max(0.0, x0 - 0.05 * full), x1 + 0.35 * full


def clipped_intervals(plot, x, y, lo, hi, x0: float, x1: float, color: str, beam: float, width: float = 1.0,
                      unit: str = "×"):
    """Horizontal interval whiskers at (x, y) drawn inside [x0, x1]; an end beyond the chart becomes an
    arrow at the edge with the end's value, so an interval never runs off the plot unsaid."""
    x, y, lo, hi = (np.asarray(v, dtype=float) for v in (x, y, lo, hi))
    ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(x)
    if not ok.any():
        return
    cl, ch = np.clip(lo, x0, x1), np.clip(hi, x0, x1)
    pen = pg.mkPen(color, width=width)
    keep_l = ok & (lo >= x0)
    keep_r = ok & (hi <= x1)
    # beams only on the ends that are inside; an end outside gets an arrow instead
    plot.addItem(pg.ErrorBarItem(x=x[ok], y=y[ok], left=(x - cl)[ok], right=(ch - x)[ok], beam=0, pen=pen))
    for side, keep, end in (("l", keep_l, lo), ("r", keep_r, hi)):
        if keep.any():
            plot.addItem(pg.ErrorBarItem(x=end[keep], y=y[keep], height=np.full(int(keep.sum()), beam), pen=pen))
    span = x1 - x0
    for i in np.flatnonzero(ok & ~(keep_l & keep_r)):
        for beyond, edge, angle, anchor, value in ((lo[i] < x0, x0, 0, (0, 0.5), lo[i]),
                                                   (hi[i] > x1, x1, 180, (1, 0.5), hi[i])):
            if not beyond:
                continue
            arrow = pg.ArrowItem(pos=(edge, y[i]), angle=angle, headLen=9, tipAngle=40, pen=pen, brush=pg.mkBrush(color))
            arrow.setToolTip(f"the interval reaches {value:.3g}{unit.strip() or ''}, past the chart's edge")
            plot.addItem(arrow)
            label = pg.TextItem(f"{value:.3g}{unit}", color=color, anchor=(anchor[0], -0.1))
            label.setPos(edge + (0.012 * span if angle == 0 else -0.012 * span), y[i])
            plot.addItem(label)


COLUMNS = ["task", "A median ms", "B median ms", "B/A", "95% CI", "p", "noise floor", "verdict"]
ROW_PX = 44   # chart height per task: the name above its bars and the bars never overlap (26 px did)


class CompareView(QWidget):
    task_selected = Signal(str)
    compare_requested = Signal(str, str)   # two saved-run references chosen in the combos
    add_rounds_requested = Signal(str, str, int)   # A, B (saved runs) and how many rounds to add to B

    def __init__(self, parent=None):
        super().__init__(parent)
        self.theme = current_theme()
        self.comparison = None
        self.runs = (None, None)
        self.rows: list = []              # TaskStats in display order (impact), total last

        head = QHBoxLayout()
        self.combo_a, self.combo_b = QComboBox(), QComboBox()
        for c in (self.combo_a, self.combo_b):
            c.setMinimumWidth(160)
        # runs recorded on several devices (GPUs, cluster nodes): each side picks its device first, so
        # one machine is compared with another (as `compare --a-device/--b-device`); hidden with one device
        self.summaries: list = []
        self.device_a, self.device_b = QComboBox(), QComboBox()
        for side, d in (("A", self.device_a), ("B", self.device_b)):
            d.setToolTip(f"Only runs recorded on this device in {side}'s list")
            d.setSizeAdjustPolicy(QComboBox.AdjustToContents)
            d.setMaximumWidth(220)
            d.hide()
        self.device_a.currentIndexChanged.connect(lambda _: self._fill_runs(self.combo_a, self.device_a))
        self.device_b.currentIndexChanged.connect(lambda _: self._fill_runs(self.combo_b, self.device_b))
        self.compare_btn = QPushButton("Compare")
        self.compare_btn.clicked.connect(
            lambda: self.compare_requested.emit(self.combo_a.currentData() or "", self.combo_b.currentData() or ""))
        self.title = QLabel(NO_COMPARISON)   # a row of its own, wrapped: never wider than the page
        self.title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.title.setWordWrap(True)
        self.meaning = QLabel("")            # the threshold, the noise floor and what each verdict means
        self.meaning.setWordWrap(True)
        self.rename_btn = QPushButton("Rename B…")
        self.rename_btn.setToolTip("Give the run picked as B a name (the pickers and the chart show it)")
        # an `unsure` verdict says about how many more rounds would settle it: this measures them now
        # and adds them to B (the same code only), then compares again
        self.add_btn = QPushButton("Add rounds")
        self.add_btn.hide()
        self.add_btn.clicked.connect(self._add_rounds)
        self._refs: tuple[str, str] | None = None
        self.chart_btn = QPushButton("Export chart…")
        self.numbers_btn = QPushButton("Export numbers…")
        self.chart_btn.clicked.connect(self._ask_chart)
        self.numbers_btn.clicked.connect(self._ask_numbers)
        for w in (QLabel("A"), self.device_a, self.combo_a, QLabel("B"), self.device_b, self.combo_b,
                  self.compare_btn, self.rename_btn, self.add_btn):
            head.addWidget(w)
        head.addStretch(1)
        head.addWidget(self.chart_btn)
        head.addWidget(self.numbers_btn)

        self.chart = pg.GraphicsLayoutWidget()
        self.medians = self.chart.addPlot(title="median per launch (ms), A vs B")
        self.ratio = self.chart.addPlot(title="B / A with 95% CI")
        self.chart.ci.layout.setColumnStretchFactor(0, 3)
        self.chart.ci.layout.setColumnStretchFactor(1, 2)
        for p in (self.medians, self.ratio):
            p.invertY(True)
            p.showGrid(x=True, alpha=0.15)
            p.setMouseEnabled(y=False)
        self.ratio.setYLink(self.medians)
        self.ratio.getAxis("left").setStyle(showValues=False)
        # the legend in a row of the chart's own layout, under the plots: never over a bar, and in exports
        self.legend = pg.LegendItem(colCount=2)
        self.chart.ci.addItem(self.legend, row=1, col=0, colspan=2)
        self.medians.getAxis("bottom").enableAutoSIPrefix(False)
        self.chart_area = QScrollArea()       # one row per task: a long list scrolls, the page never grows
        self.chart_area.setWidget(self.chart)
        self.chart_area.setWidgetResizable(True)
        self.chart_area.setFrameShape(QFrame.NoFrame)
        self.chart_area.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)

        self.dist = pg.PlotWidget(title="distribution of the selected task")
        self.dist.setLabel("bottom", "ms per launch")
        self.dist.getAxis("bottom").enableAutoSIPrefix(False)
        self.dist.setLabel("left", "launches")
        # no legend box: it sat over the bars; the title names each side's median in its colour
        self._dist_medians = None   # (A median, B median, A launches, B launches) the title states
        self.dist.getPlotItem().vb.sigResized.connect(self._fit_dist_title)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.setSelectionMode(QTableWidget.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.table.itemSelectionChanged.connect(self._row_selected)

        bottom = QSplitter(Qt.Horizontal)
        bottom.addWidget(self.table)
        bottom.addWidget(self.dist)
        bottom.setSizes([600, 400])
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.chart_area)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addLayout(head)
        lay.addWidget(self.title)
        lay.addWidget(self.meaning)
        lay.addWidget(split, 1)
        self._enable(False)
        self.set_theme(self.theme)

    def set_theme(self, theme: str):
        """The chart follows the window's theme (restyle calls this; the chart is no PlotWidget)."""
        self.theme = theme
        self.chart.setBackground(PLOT[theme]["background"])
        fg = pg.mkColor(PLOT[theme]["foreground"])
        for p in (self.medians, self.ratio):
            for name in ("left", "bottom"):
                p.getAxis(name).setPen(fg)
                p.getAxis(name).setTextPen(fg)
            p.titleLabel.setText(p.titleLabel.text, color=PLOT[theme]["foreground"])
        self.dist.setBackground(PLOT[theme]["background"])
        for name in ("left", "bottom"):
            self.dist.getAxis(name).setPen(fg)
            self.dist.getAxis(name).setTextPen(fg)
        if self.comparison is not None:
            self._fill_chart()

    # -- inputs
    def clear(self):
        """Another project: no runs to pick, no comparison on show."""
        self.comparison, self.runs, self.rows = None, (None, None), []
        for combo in (self.combo_a, self.combo_b):
            combo.clear()
            combo.setPlaceholderText("")
        self.compare_btn.setEnabled(False)
        for p in (self.medians, self.ratio):
            p.clear()
        self.legend.clear()
        self.dist.clear()
        self._dist_medians = None
        self.dist.setTitle("distribution of the selected task")
        self.table.setRowCount(0)
        self.title.setText(NO_COMPARISON)
        self.title.setToolTip("")
        self._enable(False)

    def set_runs(self, summaries):
        """Fill the A/B pickers with saved runs (`bench.history.RunSummary`), newest last; each names
        the device it was recorded on, and with more than one device a device picker per side
        narrows its list."""
        self.summaries = list(summaries)
        devices = sorted({run_device(s) for s in self.summaries})
        for d in (self.device_a, self.device_b):
            current = d.currentData()
            d.blockSignals(True)
            d.clear()
            d.addItem("any device", None)
            for dev in devices:
                d.addItem(dev, dev)
            d.setCurrentIndex(max(0, d.findData(current)) if current is not None else 0)
            d.blockSignals(False)
            d.setVisible(len(devices) > 1)
        for combo, d in ((self.combo_a, self.device_a), (self.combo_b, self.device_b)):
            self._fill_runs(combo, d, newest=False)
        n = self.combo_b.count()
        if n >= 2 and self.combo_a.currentData() == self.combo_b.currentData():
            self.combo_a.setCurrentIndex(n - 2)
            self.combo_b.setCurrentIndex(n - 1)
        self.compare_btn.setEnabled(bool(self.summaries))

    def pick_device(self, side: str, device: str | None):
        """Narrow side 'A' or 'B' to the runs recorded on `device` (None: any), its newest selected."""
        d = self.device_a if side == "A" else self.device_b
        d.setCurrentIndex(max(0, d.findData(device)) if device is not None else 0)

    def _fill_runs(self, combo: QComboBox, device_box: QComboBox, newest: bool = True):
        device = device_box.currentData()
        current = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        for s in self.summaries:
            if device is None or run_device(s) == device:
                # a GPU run names its GPU; a CPU run says cpu (the CPU's model, long, is in the tooltip)
                where = s.backend if s.backend == "cpu" or not s.device else s.device
                combo.addItem(f"{s.label} · {where} · {s.launches} launches", s.label)
                combo.setItemData(combo.count() - 1, f"recorded on {run_device(s)} ({s.backend})", Qt.ToolTipRole)
        i = combo.findData(current) if current is not None else -1
        combo.setCurrentIndex(i if i >= 0 and not (newest and device is not None) else combo.count() - 1)
        combo.blockSignals(False)

    def show_comparison(self, cmp, run_a, run_b, saved: bool = True):
        """`saved`: the runs are the ones picked in the combos; a fresh comparison's (generated vs
        override, not saved) shows its sides' names there instead, so pickers and chart agree."""
        self.comparison, self.runs = cmp, (run_a, run_b)
        self._offer_rounds(cmp, run_a, run_b, saved)
        if not saved:
            for combo, label in ((self.combo_a, cmp.a), (self.combo_b, cmp.b)):
                combo.setPlaceholderText(label)
                combo.setCurrentIndex(-1)
        self.rows = list(cmp.tasks) + ([cmp.total] if cmp.total else [])
        counts = {v: sum(t.verdict == v for t in cmp.tasks) for v in VERDICT_COLOR}
        what = "CPU time" if cmp.metric == "cpu_ms" else "time"
        dev_a, dev_b = (getattr(getattr(r, "context", None), "device", "") for r in (run_a, run_b))
        on_a, on_b = ((f" on {dev_a}", f" on {dev_b}") if dev_a and dev_b and dev_a != dev_b else ("", ""))
        self.title.setText(f"<b>A</b> {cmp.a}{on_a} vs <b>B</b> {cmp.b}{on_b} ({what} per launch): "
                           + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
                           + ("  ⚠ " + "; ".join(cmp.warnings) if cmp.warnings else ""))
        self.title.setToolTip("\n".join(cmp.warnings))
        self.meaning.setText(
            f"Verdicts from the 95% interval of B/A: <b>same</b> only when it lies within ±{cmp.threshold:.0%} (the "
            f"threshold, shaded); <b>slower</b> / <b>faster</b> only when it lies wholly beyond it and the task's noise "
            f"floor; else <b>unsure</b> (hover a verdict for why, and the rounds that would settle it).")
        self._fill_chart()
        self._fill_table()
        self._enable(True)
        if cmp.tasks:
            self.select_task(cmp.tasks[0].task)

    def rounds_to_add(self, cmp) -> int:
        """The rounds the `unsure` rows ask for (the most any asks, capped at 20); 0 when none would help."""
        asks = [t.rounds_needed for t in cmp.tasks if t.verdict == "unsure" and t.rounds_needed]
        return min(20, max(asks)) if asks else 0

    def _offer_rounds(self, cmp, run_a, run_b, saved: bool):
        n = self.rounds_to_add(cmp) if saved and not cmp.paired else 0
        ref = lambda run: (getattr(run, "name", None) or (f"#{run.id}" if getattr(run, "id", None) else ""))  # noqa: E731
        self._refs = (ref(run_a), ref(run_b)) if n and run_a is not None and run_b is not None else None
        self.add_btn.setVisible(bool(self._refs))
        if self._refs:
            self.add_btn.setText(f"Add {n} round{'s' if n != 1 else ''} to B")
            self.add_btn.setToolTip(f"Some verdicts are unsure: measure {n} more round{'s' if n != 1 else ''} of B's "
                                    f"workloads now (the same code only) and add them to {self._refs[1]}, then "
                                    f"compare again")
            self._rounds = n

    def _add_rounds(self):
        if self._refs:
            self.add_btn.setEnabled(False)
            self.add_rounds_requested.emit(self._refs[0], self._refs[1], self._rounds)

    def select_task(self, task: str):
        for i, r in enumerate(self.rows):
            if r.task == task:
                self.table.selectRow(i)
                return

    # -- drawing
    def _fill_chart(self):
        for p in (self.medians, self.ratio):
            p.clear()
        self.legend.clear()
        tasks = [r for r in self.rows if r.task != TOTAL]
        run_a, run_b = self.runs
        metric = self.comparison.metric
        what = "CPU time" if metric == "cpu_ms" else "time"
        self.medians.setTitle(f"median {what} per launch (ms), A vs B")
        self.dist.setLabel("bottom", f"{what} per launch (ms)")
        self.chart.setMinimumHeight(ROW_PX * len(tasks) + 140)   # the rows take the height they need
        y = np.arange(len(tasks), dtype=float)
        ma = np.array([r.median_a for r in tasks])
        mb = np.array([r.median_b for r in tasks])
        # per row: the name (about half a row), then A and B (-0.1..+0.32)
        bar_a = pg.BarGraphItem(x0=0, y=y + A_OFFSET, width=ma, height=BAR_H, brush=COLOR_A)
        bar_b = pg.BarGraphItem(x0=0, y=y + B_OFFSET, width=mb, height=BAR_H, brush=COLOR_B)
        self.medians.addItem(bar_a)
        self.medians.addItem(bar_b)
        self.legend.addItem(bar_a, f"A  {self.comparison.a}")
        self.legend.addItem(bar_b, f"B  {self.comparison.b}")
        # each median's interval is bench/stats.py's (rounds, then launches), as the ratio's: the view
        # computes no statistics of its own
        cis_a = np.array([r.median_ci_a for r in tasks], dtype=float).reshape(-1, 2)
        cis_b = np.array([r.median_ci_b for r in tasks], dtype=float).reshape(-1, 2)
        top = float(max(np.nanmax(mb), np.nanmax(ma))) * 1.25 if len(tasks) else 1.0
        fg = PLOT[self.theme]["foreground"]
        for offset, med, cis in ((A_OFFSET, ma, cis_a), (B_OFFSET, mb, cis_b)):
            clipped_intervals(self.medians, med, y + offset, cis[:, 0], cis[:, 1], 0.0, top, fg, beam=0.12, unit=" ms")
        # task names above their bars: long names fit there, never in a narrow axis
        for r, yy in zip(tasks, y):
            name = pg.TextItem(r.task, color=PLOT[self.theme]["foreground"], anchor=(0, 1))   # its bottom edge
            name.setPos(0, yy + A_OFFSET - BAR_H / 2 - 0.02)
            self.medians.addItem(name)
        for p in (self.medians, self.ratio):
            p.getAxis("left").setTicks([[(yy, "") for yy in y]])
        self.medians.setLabel("bottom", "ms")
        ratio = np.array([r.ratio for r in tasks])
        lo = np.array([r.ci[0] for r in tasks])
        hi = np.array([r.ci[1] for r in tasks])
        th = self.comparison.threshold
        x0, x1 = ratio_range(ratio, lo, hi, th)
        band = pg.LinearRegionItem((1.0 - th, 1.0 + th), movable=False,
                                   brush=pg.mkBrush(BAND[self.theme]), pen=pg.mkPen(None))
        band.setZValue(-10)
        self.ratio.addItem(band)   # `same` needs the whole interval inside this band
        self.ratio.addItem(pg.InfiniteLine(1.0, angle=90, pen=pg.mkPen("#9e9e9e", style=Qt.DashLine)))
        clipped_intervals(self.ratio, ratio, y, lo, hi, x0, x1, fg, beam=0.2, width=1.5)
        self.ratio.addItem(pg.ScatterPlotItem(x=ratio, y=y, size=11, pen=None,
                                              brush=[pg.mkBrush(VERDICT_COLOR[r.verdict]) for r in tasks]))
        for r, yy in zip(tasks, y):
            label = pg.TextItem(f"{r.ratio:.2f}×  {r.verdict}", color=VERDICT_COLOR[r.verdict], anchor=(0, 1.1))
            label.setPos(r.ratio, yy)
            self.ratio.addItem(label)
        self.ratio.setLabel("bottom", "ratio B / A (left of 1: B faster)")
        self.ratio.setXRange(x0, x1, padding=0)
        self.medians.setXRange(0, top, padding=0)
        self.medians.setYRange(-0.8, len(tasks) - 0.5, padding=0)   # the first name and ratio label in view

    def _fill_table(self):
        self.table.blockSignals(True)
        self.table.setRowCount(len(self.rows))
        for i, r in enumerate(self.rows):
            cells = [r.task, f"{r.median_a:.4f}", f"{r.median_b:.4f}", f"{r.ratio:.3f}",
                     f"[{r.ci[0]:.3f}, {r.ci[1]:.3f}]", f"{r.p:.2g}", floor_text(r), r.verdict]
            for j, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if j == len(cells) - 1:
                    item.setForeground(QColor(VERDICT_COLOR[r.verdict]))
                    item.setToolTip(verdict_tip(r))
                self.table.setItem(i, j, item)
        self.table.blockSignals(False)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)

    def _row_selected(self):
        rows = self.table.selectionModel().selectedRows()
        if not rows or not self.rows:
            return
        task = self.rows[rows[0].row()].task
        self._fill_distribution(task)
        self.task_selected.emit(task)

    def _fill_distribution(self, task: str):
        self.dist.clear()
        run_a, run_b = self.runs
        metric = self.comparison.metric
        a, b = run_a.samples(task, metric), run_b.samples(task, metric)
        both = np.concatenate([a, b])
        if len(both) == 0:
            return
        hi = np.percentile(both, 99) if len(both) > 20 else both.max()  # keep outliers from squashing the plot
        edges = np.histogram_bin_edges(both[both <= hi], bins=min(40, max(20, len(both) // 3)))
        self._dist_medians = (float(np.median(a)), float(np.median(b)), len(a), len(b))
        self._fit_dist_title()
        for name, xs, color in (("A", a, COLOR_A), ("B", b, COLOR_B)):
            counts, _ = np.histogram(np.clip(xs, edges[0], edges[-1]), edges)
            c = QColor(color)
            c.setAlpha(90)
            self.dist.plot(edges, counts, stepMode="center", fillLevel=0, brush=c, pen=pg.mkPen(color, width=2),
                           name=f"{name} median {np.median(xs):.4g} ms")
            self.dist.addItem(pg.InfiniteLine(float(np.median(xs)), angle=90, pen=pg.mkPen(color, style=Qt.DashLine)))

    def _fit_dist_title(self, *_):
        """The longest title that fits the pane: the title row is not clipped to the plot, so a long one
        was cut at the pane's right edge (at 1400x900) or widened the plot past it. Rechecked on resize."""
        if self._dist_medians is None:
            return
        ma, mb, na, nb = self._dist_medians
        a, b = f"<span style='color:{COLOR_A}'>", f"<span style='color:{COLOR_B}'>"
        forms = [f"{a}A median {ma:.4g} ms</span> · {b}B median {mb:.4g} ms</span> ({na} vs {nb} launches)",
                 f"{a}A median {ma:.4g} ms</span> · {b}B median {mb:.4g} ms</span>",
                 f"{a}A {ma:.4g}</span> · {b}B {mb:.4g}</span> ms"]
        room = self.dist.getPlotItem().vb.width() - 8   # the title is centred over the plot, not the pane
        label = self.dist.getPlotItem().titleLabel
        for text in forms:
            label.setText(text)
            if label.item.boundingRect().width() <= room:
                break
        label.setToolTip(f"A median {ma:.4g} ms ({na} launches), B median {mb:.4g} ms ({nb} launches)")

    def dist_title_fits(self) -> bool:
        """Whether the distribution's title lies inside its pane (for the layout test)."""
        item = self.dist.getPlotItem().titleLabel.item
        box = self.dist.mapFromScene(item.mapToScene(item.boundingRect())).boundingRect()
        return box.left() >= 0 and box.right() <= self.dist.width()

    def distribution_curves(self) -> list:
        """The histogram curves now drawn (for tests and exports)."""
        return [i for i in self.dist.getPlotItem().listDataItems()]

    # -- exports
    def export_chart(self, path: str | Path) -> Path:
        """The bar and ratio chart as PNG or SVG (by the file's suffix)."""
        path = Path(path)
        scene_item = self.chart.ci
        if path.suffix.lower() == ".svg":
            # QtSvg's generator: pyqtgraph's own SVGExporter cannot parse the paths recent Qt writes
            from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, QSize
            from PySide6.QtGui import QPainter
            from PySide6.QtSvg import QSvgGenerator
            data = QByteArray()
            buf = QBuffer(data)
            buf.open(QIODevice.OpenModeFlag.WriteOnly)
            gen = QSvgGenerator()
            gen.setOutputDevice(buf)   # into memory, then written by write_file: a planted link is refused
            size = self.chart.size()
            gen.setSize(QSize(size.width(), size.height()))
            gen.setViewBox(QRect(0, 0, size.width(), size.height()))
            gen.setTitle(f"{self.comparison.a} vs {self.comparison.b}")
            painter = QPainter(gen)
            self.chart.render(painter)
            painter.end()
            buf.close()
            write_file(path, bytes(data.data()))
        elif path.suffix.lower() == ".png":
            ex = pg.exporters.ImageExporter(scene_item)   # the size on screen, in the window's theme
            ex.parameters()["width"] = int(self.chart.width())
            ex.parameters()["background"] = pg.mkColor(PLOT[self.theme]["background"])
            write_file(path, png_bytes(ex.export(toBytes=True)))
        else:
            raise ValueError(f"export the chart as .png or .svg, not {path.suffix or 'no suffix'}")
        return path

    def export_numbers(self, path: str | Path) -> Path:
        """The comparison's numbers as CSV or JSON (by the file's suffix)."""
        path = Path(path)
        if path.suffix.lower() == ".json":
            write_file(path, json.dumps(self.comparison.to_dict(), indent=2))
        elif path.suffix.lower() == ".csv":
            write_file(path, self.comparison.to_csv())
        else:
            raise ValueError(f"export the numbers as .csv or .json, not {path.suffix or 'no suffix'}")
        return path

    def _ask_chart(self):
        path, chosen = QFileDialog.getSaveFileName(self, "Export chart", "comparison.png", CHART_FILTERS)
        if path:
            self.save_as(path, chosen, self.export_chart)

    def _ask_numbers(self):
        path, chosen = QFileDialog.getSaveFileName(self, "Export numbers", "comparison.csv", NUMBER_FILTERS)
        if path:
            self.save_as(path, chosen, self.export_numbers)

    def save_as(self, path: str, chosen_filter: str, export) -> Path | None:
        """A name typed without an extension gets the chosen filter's; a failure is said in the
        title line (never an exception in the terminal)."""
        p = Path(path)
        if not p.suffix:
            m = re.search(r"\*(\.\w+)", chosen_filter or "")
            p = p.with_suffix(m[1] if m else ".png")
        try:
            out = export(p)
        except (OSError, ValueError) as e:
            self.title.setText(f"⚠ export failed: {e}")
            return None
        self.title.setToolTip(f"exported {out}")
        return out

    def _enable(self, on: bool):
        self.add_btn.setEnabled(on)
        self.chart_btn.setEnabled(on)
        self.numbers_btn.setEnabled(on)
