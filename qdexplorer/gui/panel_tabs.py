"""The bottom tab area: Timings, Messages, Assembly modes, and the bench commands' Compare and History.

A page that asks for more width than a 900-pixel window can give is put in a scroll area, so one
wide panel never forces the whole window wider; callers keep using their own widget
(`setCurrentWidget`, `indexOf` map it to its page).
"""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QTabWidget

WIDE = 420  # pixels of minimum width above which a page scrolls instead


class PanelTabs(QTabWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._pages: dict = {}

    def _page(self, widget):
        if widget.minimumSizeHint().width() <= WIDE:
            return widget
        area = QScrollArea()
        area.setWidget(widget)
        area.setWidgetResizable(True)
        area.setFrameShape(QFrame.NoFrame)
        self._pages[widget] = area
        return area

    def addTab(self, widget, *args):  # noqa: N802 - Qt's name
        return super().addTab(self._page(widget), *args)

    def insertTab(self, index, widget, *args):  # noqa: N802
        return super().insertTab(index, self._page(widget), *args)

    def setCurrentWidget(self, widget):  # noqa: N802
        super().setCurrentWidget(self._pages.get(widget, widget))

    def indexOf(self, widget):  # noqa: N802
        return super().indexOf(self._pages.get(widget, widget))

    def widget(self, index):
        page = super().widget(index)
        return page.widget() if page in self._pages.values() else page

    def currentWidget(self):  # noqa: N802
        return self.widget(self.currentIndex())
