"""Live plots of the session: per-task launch times of the latest run, and cache tiers.

pyqtgraph's way: each curve is created once and fed with setData from a timer, with peak
downsampling and clipping to the view, so thousands of launches stay smooth. The data is the
session's; this view only draws it.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QWidget

TIERS = ["memory", "disk", "miss", "error"]  # the order of the bars
TIER_BRUSH = ["#2e7d32", "#1565c0", "#ef6c00", "#c62828"]


class TimingsPanel(QWidget):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(title="Launch time per task")
        self.plot.setLabel("left", "ms")
        self.plot.setLabel("bottom", "launch #")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.tiers = pg.PlotWidget(title="PTX stage cache tiers")
        self.tiers.getAxis("bottom").setTicks([list(enumerate(TIERS))])
        self.bars = pg.BarGraphItem(x=list(range(4)), height=[0] * 4, width=0.6, brushes=TIER_BRUSH)
        self.tiers.addItem(self.bars)
        self.tiers.setMaximumWidth(360)
        self.tiers.setMinimumWidth(260)
        lay.addWidget(self.plot, 3)
        lay.addWidget(self.tiers, 1)
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.shown_run = None
        self._dirty = False
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.refresh)
        self.timer.start(100)
        session.launches_added.connect(self._mark)
        session.run_started.connect(self._mark)
        session.compile_finished.connect(self._mark)

    @property
    def series(self) -> dict[str, list[float]]:
        """Launch times per task of the run on show (the latest one)."""
        return self.shown_run.times if self.shown_run is not None else {}

    def _mark(self, *_):
        self._dirty = True

    def clear(self):
        for c in self.curves.values():
            self.plot.removeItem(c)
        self.curves.clear()
        self.legend.clear()
        self.shown_run = None

    def tier_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(TIERS, 0)
        for (target, _), ct in self.session.compiled.items():
            if target == "nvptx":
                counts[ct.tier if ct.tier in counts else "error"] += 1
        return counts

    def refresh(self):
        if not self._dirty:
            return
        self._dirty = False
        latest = self.session.runs[-1] if self.session.runs else None
        if latest is not self.shown_run:
            self.clear()
            self.shown_run = latest
            if latest is not None:
                self.plot.setTitle(f"Launch time per task — run {latest.id}: {latest.workload} ({latest.backend})")
        for i, (task, ys) in enumerate(self.series.items()):
            curve = self.curves.get(task)
            if curve is None:
                pen = pg.mkPen(pg.intColor(i, hues=max(8, len(self.series))), width=2)
                curve = self.plot.plot([], [], pen=pen, name=task, symbol="o", symbolSize=4)
                curve.setDownsampling(auto=True, method="peak")
                curve.setClipToView(True)
                self.curves[task] = curve
            curve.setData(ys)
        counts = self.tier_counts()
        self.bars.setOpts(height=[counts[t] for t in TIERS])
