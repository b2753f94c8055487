"""Live plots: per-task launch times and cache tiers.

pyqtgraph's way: each curve is created once and fed with setData from a timer, with peak
downsampling and clipping to the view, so thousands of launches stay smooth.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QWidget

TIERS = ["memory", "disk", "miss", "error"]  # the order of the bars
TIER_BRUSH = ["#2e7d32", "#1565c0", "#ef6c00", "#c62828"]


class TimingsPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        pg.setConfigOptions(antialias=True, background="w", foreground="k")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget(title="Launch time per task")
        self.plot.setLabel("left", "ms")
        self.plot.setLabel("bottom", "launch #")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.tiers = pg.PlotWidget(title="Cache tiers, last command")
        self.tiers.getAxis("bottom").setTicks([list(enumerate(TIERS))])
        self.bars = pg.BarGraphItem(x=list(range(4)), height=[0] * 4, width=0.6, brushes=TIER_BRUSH)
        self.tiers.addItem(self.bars)
        self.tiers.setMaximumWidth(360)
        self.tiers.setMinimumWidth(260)
        lay.addWidget(self.plot, 3)
        lay.addWidget(self.tiers, 1)
        self.series: dict[str, list[float]] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.tier_counts = dict.fromkeys(TIERS, 0)
        self._dirty = False
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.refresh)
        self.timer.start(100)

    def add_launch(self, ev):
        self.series.setdefault(ev.task, []).append(ev.ms)
        self._dirty = True

    def reset_tiers(self):
        self.tier_counts = dict.fromkeys(TIERS, 0)
        self._dirty = True

    def add_compile(self, ev):
        self.tier_counts[ev.tier if ev.tier in self.tier_counts else "error"] += 1
        self._dirty = True

    def clear(self):
        self.series.clear()
        for c in self.curves.values():
            self.plot.removeItem(c)
        self.curves.clear()
        self.legend.clear()
        self._dirty = True

    def refresh(self):
        if not self._dirty:
            return
        self._dirty = False
        for i, (task, ys) in enumerate(self.series.items()):
            curve = self.curves.get(task)
            if curve is None:
                pen = pg.mkPen(pg.intColor(i, hues=max(8, len(self.series))), width=2)
                curve = self.plot.plot([], [], pen=pen, name=task, symbol="o", symbolSize=4)
                curve.setDownsampling(auto=True, method="peak")
                curve.setClipToView(True)
                self.curves[task] = curve
            curve.setData(ys)
        self.bars.setOpts(height=[self.tier_counts[t] for t in TIERS])
