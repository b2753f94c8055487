"""The Timings tab: the launch plots (timeline / distribution) beside the cache-tier chart."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from .plots import LaunchPlots
from .tier_chart import TierChart, legend_html


class TimingsPanel(QSplitter):
    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.launches = LaunchPlots(session)
        self.tiers = TierChart(session)
        box = QWidget()
        v = QVBoxLayout(box)
        v.setContentsMargins(0, 4, 0, 0)
        label = QLabel(legend_html())
        label.setWordWrap(True)
        v.addWidget(label)
        v.addWidget(self.tiers, 1)
        box.setMinimumWidth(130)
        self.addWidget(self.launches)
        self.addWidget(box)
        self.setStretchFactor(0, 4)
        self.setStretchFactor(1, 1)
        self.setChildrenCollapsible(False)
        session.selected.connect(self._selected)

    @property
    def curves(self):
        return self.launches.curves

    def set_session(self, session):
        self.session.selected.disconnect(self._selected)   # the project left no longer moves the plots
        self.session = session
        self.launches.set_session(session)
        self.tiers.set_session(session)
        session.selected.connect(self._selected)

    def _selected(self, sel):
        """The session's selection: the plots single out its task or kernel."""
        self.select(sel.task, sel.kernel)

    def clear(self):
        self.launches.clear()

    def select(self, task=None, kernel=None):
        self.launches.select(task, kernel)
