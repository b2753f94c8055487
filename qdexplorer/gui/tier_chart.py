"""Cache tiers of the last command, counted per stage: PTX (nvptx) and host object (CPU run) apart.

A Run on the CPU compiles host objects while the tree shows the PTX stage; counting both in one bar
made the chart disagree with the tree. Each stage gets its own group of bars, labelled by stage.
"""
from __future__ import annotations

import pyqtgraph as pg

from .theme import current_theme, restyle

TIERS = ["memory", "disk", "miss", "error"]
TIER_COLORS = ["#2e7d32", "#1565c0", "#ef6c00", "#c62828"]
STAGES = {"nvptx": "PTX", "host": "host object"}


class TierChart(pg.PlotWidget):
    def __init__(self, parent=None):
        super().__init__(parent, title="Cache tiers, last command")
        self.counts: dict[str, dict[str, int]] = {}
        self.setMouseEnabled(False, False)
        self.hideButtons()
        self.getAxis("left").setLabel("tasks")
        self.bars: list = []
        self.legend = None
        restyle(self, current_theme())
        self.refresh()

    def reset(self):
        self.counts = {}
        self.refresh()

    def add_compile(self, ev):
        stage = STAGES.get(ev.target, ev.target)
        tier = ev.tier if ev.tier in TIERS else "error"
        self.counts.setdefault(stage, dict.fromkeys(TIERS, 0))[tier] += 1

    def count(self, stage: str, tier: str) -> int:
        return self.counts.get(stage, {}).get(tier, 0)

    def refresh(self):
        for b in self.bars:
            self.removeItem(b)
        self.bars = []
        stages = list(self.counts) or ["PTX"]
        width = 0.8 / len(TIERS)
        for j, tier in enumerate(TIERS):
            xs = [i + (j - 1.5) * width for i in range(len(stages))]
            hs = [self.count(s, tier) for s in stages]
            bar = pg.BarGraphItem(x=xs, height=hs, width=width * 0.92, brush=TIER_COLORS[j], name=tier)
            self.addItem(bar)
            self.bars.append(bar)
        self.getAxis("bottom").setTicks([[(i, s) for i, s in enumerate(stages)]])
        self.setXRange(-0.5, len(stages) - 0.5, padding=0)
        top = max([self.count(s, t) for s in stages for t in TIERS] + [1])
        self.setYRange(0, top * 1.15, padding=0)
        self.setTitle("Cache tiers, last command: " + ", ".join(
            f"{s} " + " ".join(f"{self.count(s, t)} {t}" for t in TIERS if self.count(s, t)) for s in self.counts)
            if self.counts else "Cache tiers, last command")
