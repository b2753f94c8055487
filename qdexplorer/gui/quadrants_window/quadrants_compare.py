"""The Quadrants window's Comparison tab: generated against edited, and Quadrants against qdexplorer.lang.

Top: every launch of the selected task in both runs (Quadrants' kernel profiler). Middle: one row
per task with medians, ratio, bench/stats.py's interval and verdict, and whether the edit was
used. Bottom: the same program's tasks as Quadrants and qdexplorer.lang compiled them.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QSplitter, QTableWidget, QTableWidgetItem

import numpy as np

from ..timing.plots import EDGE_ROOM, fmt_ms as edge_value, steady_top, time_unit
from ..theme import PLOT, current_theme

EDIT_COLUMNS = ["Task", "Generated median", "Edited median", "Ratio", "Edit", "Used", "95% CI", "Verdict"]
OURS_COLUMNS = ["Quadrants task", "qdexplorer.lang task", "Type", "Quadrants bytes", "Ours PTX bytes",
                "Quadrants regs", "Ours regs", "Quadrants median", "Ours median"]


def fmt_ms(v) -> str:
    """µs below a millisecond, never '0.0000'."""
    if v is None:
        return ""
    return f"{v * 1e3:.2f} µs" if v < 1.0 else f"{v:.3f} ms"


def _fill(table: QTableWidget, rows: list[list[str]], color: list[str | None] | None = None):
    table.setRowCount(0)
    for r, cells in enumerate(rows):
        table.insertRow(r)
        for c, v in enumerate(cells):
            item = QTableWidgetItem(v)
            if color and color[r]:
                item.setForeground(QBrush(QColor(color[r])))
            table.setItem(r, c, item)
    table.resizeColumnsToContents()
    fit_headers(table)


def fit_headers(table: QTableWidget):
    """Every column at least as wide as its header ("enerated media" was cut), also while empty."""
    header = table.horizontalHeader()
    for c in range(table.columnCount()):
        header.resizeSection(c, max(header.sectionSize(c), header.sectionSizeFromContents(c).width() + 8))


def interval_text(st: dict | None) -> str:
    """A comparison's interval, or "none" where it has none: under 4 rounds a side, or a saved run's NaN
    bounds, which JSON keeps as null (a 2-round saved run made the window fail to reopen it)."""
    ci = (st or {}).get("ci") or (None, None)
    if not st:
        return ""
    if any(c is None or c != c for c in ci):
        return "none"
    return f"{ci[0]:.3f} – {ci[1]:.3f}"


class ComparisonPanel(QSplitter):
    def __init__(self, parent=None):
        super().__init__(Qt.Vertical, parent)
        self.plot = pg.PlotWidget(title="Launch times of the selected task")   # the theme's colours (restyle)
        self.plot.setLabel("left", "launch time (ms)")
        # the unit comes from the data, never "(x0.001)": on either axis (a few launches read "launch # (x0.001)")
        for side in ("left", "bottom"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self.plot.setLabel("bottom", "launch #")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.addLegend(offset=(-10, 10))
        self.generated_curve = self.plot.plot([], [], pen=pg.mkPen("#1565c0", width=2), symbol="o", symbolSize=5,
                                              symbolBrush="#1565c0", name="generated")
        self.edited_curve = self.plot.plot([], [], pen=pg.mkPen("#ef6c00", width=2), symbol="t", symbolSize=6,
                                           symbolBrush="#ef6c00", name="edited")
        self.edits = QTableWidget(0, len(EDIT_COLUMNS))
        self.edits.setHorizontalHeaderLabels(EDIT_COLUMNS)
        self.ours = QTableWidget(0, len(OURS_COLUMNS))
        self.ours.setHorizontalHeaderLabels(OURS_COLUMNS)
        for w in (self.plot, self.edits, self.ours):
            self.addWidget(w)
        fit_headers(self.edits)
        fit_headers(self.ours)
        self._edge_items: list = []

    def plot_task(self, name: str, generated: list, edited: list):
        """Both runs' launches of one task, the axis scaled to the steady state (as the main window's
        timeline): a cold first launch (15 ms beside 20 µs medians) or a spike sits on the top edge as
        a marked point with its value instead of setting the scale."""
        peak = max(list(generated) + list(edited), default=0.0)
        warm = [list(v[1:] if len(v) > 1 else v) for v in (generated, edited) if len(v)]
        top = steady_top(warm) if warm else peak
        clip = peak > top
        unit, k = time_unit(top if clip else peak)
        edge = (top if clip else peak) * k * (EDGE_ROOM if clip else 1.15)
        self.plot.setLabel("left", f"launch time ({unit})")
        for item in self._edge_items:
            self.plot.removeItem(item)
        self._edge_items = []
        fg = PLOT[current_theme()]["foreground"]
        written: list[float] = []   # launch numbers already labelled: two values never overlap
        # a label ("cold 15.00 ms") is about a tenth of the plot wide: with many launches 1.5 launches apart
        # was not room enough and spike labels overlapped (issue 42)
        room = max(1.5, 0.1 * max(len(generated), len(edited), 1))
        for curve, values, color in ((self.generated_curve, generated, "#1565c0"), (self.edited_curve, edited, "#ef6c00")):
            ys = np.asarray(values, dtype=float) * k
            curve.setData(list(range(len(values))), np.minimum(ys, edge) if clip else ys)
            above = np.flatnonzero(ys > edge) if clip else []
            if len(above):
                marks = pg.ScatterPlotItem(above.astype(float), np.full(len(above), edge), symbol="t1", size=11,
                                           pen=pg.mkPen(color, width=2), brush=pg.mkBrush(color))
                self.plot.addItem(marks)
                self._edge_items.append(marks)
                for i in above[np.argsort(-ys[above])]:   # the largest values, written beside their marks
                    if len(written) >= 3 or any(abs(i - w) < room for w in written):
                        continue
                    written.append(float(i))
                    label = pg.TextItem(("cold " if i == 0 else "") + edge_value(float(values[i])), color=fg,
                                        anchor=(0.0 if i == 0 else 0.5, 0.0))
                    label.setPos(float(i), edge)
                    self.plot.addItem(label)
                    self._edge_items.append(label)
        # from 0, whatever the number of points: one launch is not centred on a -400..400 axis
        self.plot.setYRange(0, max(edge, 1e-9), padding=0)
        self.plot.setXRange(-0.5, max(len(generated), len(edited), 1) - 0.5, padding=0)
        self.plot.setTitle(f"Launch times of {name} (Quadrants' kernel profiler)")

    def show_edit_rows(self, rows: list[dict]):
        out = []
        for row in rows:
            st = row.get("stats")
            name = ("[internal] " if row.get("internal") else "") + row["task"] + (" (edited)" if row["edited"] else "")
            out.append([name, fmt_ms(row["generated"]["median_ms"]), fmt_ms(row["edited_run"]["median_ms"]),
                        f"{row['ratio']:.3f}" if row["ratio"] is not None else "", row["state"] or "",
                        "" if row["used"] is None else ("yes" if row["used"] else "NO"),
                        interval_text(st),
                        (st["verdict"] + (f" ({st['reason']})" if st["reason"] else "")) if st else ""])
        _fill(self.edits, out)

    def show_ours_rows(self, kernels: list[dict]):
        out, color = [], []
        for k in kernels:
            for t in k["tasks"]:
                qb = t["quadrants_ptx_bytes"] or t["quadrants_llvm_bytes"]
                out.append([t["quadrants"] or "—", t["ours"] or "—", t["type"],
                            f"{qb} ({'ptx' if t['quadrants_ptx_bytes'] else 'll'})" if qb else "",
                            str(t["ours_ptx_bytes"] or ""), str(t["quadrants_registers"] or ""),
                            str(t["ours_registers"] or ""), fmt_ms(t["quadrants_median_ms"]),
                            fmt_ms(t["ours_median_ms"])])
                color.append(None if k["match"] else "#c62828")
        _fill(self.ours, out, color)
