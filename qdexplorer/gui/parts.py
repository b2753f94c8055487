"""Two small parts of the window that its helpers hold instead of calls back into it: the Messages
pane (`Messages.log`) and the pages and panels it lays out (`Pages.show` brings one to the front).

`Pages` also keeps the order in which pages and panels were added, which View ▸ Panels lists."""
from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QWidget

from .panel_tabs import PanelTabs


class Messages(QPlainTextEdit):
    """The Messages panel: every helper's lines, the last 5,000 kept."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setReadOnly(True)
        self.setMaximumBlockCount(5000)

    def log(self, text: str) -> None:
        self.appendPlainText(text)


class Pages:
    """`pages`: the full-width pages (Kernels, Compare, History, Panes); `bottom`: the panels under
    the code (Timings, Messages, Assembly modes, Sweep). `listed`: (title, widget) in the order added,
    for View ▸ Panels (the Kernels page is where the rest live, so it is not listed)."""

    def __init__(self, pages: QTabWidget, bottom: PanelTabs):
        self.pages, self.bottom = pages, bottom
        self.listed: list[tuple[str, QWidget]] = []

    def add_page(self, widget: QWidget, title: str, listed: bool = True) -> None:
        self.pages.addTab(widget, title)
        if listed:
            self.listed.append((title, widget))

    def add_panel(self, widget: QWidget, title: str) -> None:
        self.bottom.addTab(widget, title)
        self.listed.append((title, widget))

    def show(self, widget: QWidget) -> None:
        """Bring a page (Compare, History) or a panel to the front."""
        if self.pages.indexOf(widget) >= 0:
            self.pages.setCurrentWidget(widget)
        elif self.bottom.indexOf(widget) >= 0:
            self.bottom.setCurrentWidget(widget)
