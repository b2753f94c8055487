"""Small parts of the window that its helpers hold instead of calls back into it: what the status
bar says and counts (`Activity`), the Messages pane (`Messages.log`) and the pages and panels it
lays out (`Pages.show` brings one to the front; it keeps the order View ▸ Panels lists).

`Activity` is a part of its own because the Run command, Bench & save, a sweep and adding rounds
all report the same way: a line in the status bar, then the progress of what runs ("workload 2/3
particles: task 4/5, launch 6/10", or "bench: …" while a bench counts) and its last word beside
the bar. Before, the helpers were handed these as loose calls picked off the Run part.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QProgressBar, QStatusBar, QTabWidget, QWidget

from ..session import RunRecord
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


class Activity(QObject):
    """Owns the progress bar and its label (`progress`, `label`) for the window to lay out; `names`:
    the workloads of the last Run, in the combo's order; `counting`: the activity counted when it is
    not a Run ("bench", "sweep"…)."""

    def __init__(self, status_bar: QStatusBar, parent: QObject | None = None):
        super().__init__(parent)
        self.status_bar = status_bar
        self.names: list[str] = []
        self.counting = ""
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.label = QLabel("")
        self.label.setMinimumWidth(60)  # a long progress line is clipped, never widens the window

    def status(self, text: str) -> None:
        """The status bar's line."""
        self.status_bar.showMessage(text)

    def note(self, text: str) -> None:
        """The last word beside the progress bar ("bench finished: …"); '' clears it."""
        self.label.setText(text)

    def run(self, names: list[str]) -> None:
        """A Run of these workloads: the progress line counts them in this order."""
        self.names, self.counting = list(names), ""

    def begin(self, name: str) -> None:
        """A bench, a sweep…: what the progress counts, instead of the last Run's workloads."""
        self.names, self.counting = [], name

    def end(self) -> None:
        self.counting = ""

    def show_progress(self, rec: RunRecord, *_) -> None:
        n = max(1, len(rec.tasks))
        done = rec.launches
        total = n * rec.repeat
        wl = (f"workload {self.names.index(rec.workload) + 1}/{len(self.names)} "
              if rec.workload in self.names and len(self.names) > 1 else "")
        wl = f"{self.counting}: {wl}" if self.counting else wl
        task_i = min(n, done % n + 1) if done < total else n
        launch_i = min(rec.repeat, done // n + (1 if done < total else 0))
        self.label.setText(f"{wl}{rec.workload}: task {task_i}/{n}, launch {launch_i}/{rec.repeat}"
                           + ("" if rec.status == "running" else f" ({rec.status})"))
        self.progress.setRange(0, total)
        self.progress.setValue(min(done, total))
        self.progress.setVisible(rec.status == "running")

    @Slot(bool)
    def busy(self, busy: bool) -> None:
        """The engine thread took or left a job: an open-ended bar until a run says how far it is."""
        if busy and self.progress.maximum() == 0:
            self.progress.setVisible(True)
        elif not busy:
            self.progress.setVisible(False)
            self.progress.setRange(0, 0)
