"""Cache tiers of the tasks, counted per stage: PTX (nvptx) and host object (CPU run) apart.

A Run on the CPU compiles host objects while the tree shows the PTX stage; counting both in one bar
made the chart disagree with the tree. Each stage gets its own group of bars, labelled by stage, and
the counts are the session's latest compile of every task (what the tree shows), not an event tally.
"""
from __future__ import annotations

import math

import pyqtgraph as pg

from ..theme import current_theme, restyle

TIERS = ["memory", "disk", "miss", "override", "error"]
TIER_COLORS = ["#2e7d32", "#1565c0", "#ef6c00", "#6a1b9a", "#c62828"]
# the compiler's tiers (artifacts.CompiledTask.tier) by bar: the in-process memo is memory, codegen a miss, an
# override or a loaded file their own bar. They all counted as "error" before: an error bar with no error row.
BAR_OF = {"memo": "memory", "codegen": "miss", "load": "override"}


def bar_of(tier: str) -> str:
    tier = BAR_OF.get(tier, tier)
    return tier if tier in TIERS else "error"
STAGES = {"nvptx": "PTX", "host": "host"}   # short: both group labels fit a narrow chart


class TierChart(pg.PlotWidget):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.counts: dict[str, dict[str, int]] = {}
        self.setMouseEnabled(False, False)
        self.hideButtons()
        self.getAxis("left").setLabel("tasks")
        self.bars: list = []
        self.legend = None
        restyle(self, current_theme())
        self.set_session(session)

    def set_session(self, session):
        self.session = session
        session.compile_finished.connect(lambda *_: self.refresh())
        self.refresh()

    def recount(self):
        self.counts = {}
        for (target, _), ct in sorted(self.session.compiled.items(), key=lambda kv: kv[0][0] != "nvptx"):
            stage = STAGES.get(target, target)
            tier = "error" if ct.error else bar_of(ct.tier)
            self.counts.setdefault(stage, dict.fromkeys(TIERS, 0))[tier] += 1

    def count(self, stage: str, tier: str) -> int:
        return self.counts.get(stage, {}).get(tier, 0)

    def refresh(self):
        self.recount()
        for b in self.bars:
            self.removeItem(b)
        self.bars = []
        stages = list(self.counts) or ["PTX"]
        width = 0.8 / len(TIERS)
        for j, tier in enumerate(TIERS):
            xs = [i + (j - (len(TIERS) - 1) / 2) * width for i in range(len(stages))]
            hs = [self.count(s, tier) for s in stages]
            bar = pg.BarGraphItem(x=xs, height=hs, width=width * 0.92, brush=TIER_COLORS[j], name=tier)
            self.addItem(bar)
            self.bars.append(bar)
        self.getAxis("bottom").setTicks([[(i, s) for i, s in enumerate(stages)]])
        self.setXRange(-0.5, len(stages) - 0.5, padding=0)
        top = max([self.count(s, t) for s in stages for t in TIERS] + [1])
        self.setYRange(0, top * 1.15, padding=0)
        step = max(1, math.ceil(top / 4))       # whole tasks: no 2.5 on a count axis
        self.getAxis("left").setTickSpacing(major=step, minor=step)
        self.setTitle(None)
        self.setToolTip("\n".join(f"{s}: " + ", ".join(f"{self.count(s, t)} {t}" for t in TIERS if self.count(s, t))
                                   for s in self.counts))


def legend_html() -> str:
    """The chart's legend as one line of text, shown above the chart rather than over its bars."""
    return "Cache tiers: " + " ".join(
        f'<span style="color:{c}">■</span>&nbsp;{t}' for t, c in zip(TIERS, TIER_COLORS))
