"""The Run toolbar: Compile, Reload, then where and how Run launches (backend, assembly mode,
workload, repeat), Run and Stop before them. It owns its setting widgets, which the window's
commands and the saved settings read, and its four commands' actions, which the menus list and
connect (gui/menus.py), so the toolbar, the menus and the shortcuts reach the same code."""
from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QSpinBox, QToolBar


def command(text: str, parent: QObject, shortcut=None, tip: str = "") -> QAction:
    """A command's action, with its shortcut (window-wide) and tip; connected and listed by its caller."""
    a = QAction(text, parent)
    if shortcut is not None:
        a.setShortcut(QKeySequence(shortcut))
        a.setShortcutContext(Qt.WindowShortcut)
    if tip:
        a.setStatusTip(tip)
        a.setToolTip(f"{tip} ({a.shortcut().toString(QKeySequence.NativeText)})" if shortcut is not None else tip)
    return a


class RunToolbar(QToolBar):
    """`compile`, `reload`, `run`, `stop`: the commands' actions, not yet connected (Stop starts disabled)."""

    def __init__(self, cuda_reason: str = ""):
        super().__init__("Run")
        self.setObjectName("run-toolbar")
        self.setMovable(False)
        self.compile = command("&Compile", self, "Ctrl+B", "Compile every task to PTX")
        self.reload = command("Re&load", self, "Ctrl+R", "Re-read the project's files and recompile")
        self.run = command("&Run", self, "F5", "Run the workload on the chosen backend")
        self.stop = command("&Stop", self, "Shift+F5", "Stop the run after the launch in flight")
        self.stop.setEnabled(False)
        self.backend = QComboBox()
        self.backend.addItems(["cpu", "cuda"])
        self.backend.setToolTip("Where Run launches the tasks")
        if cuda_reason:
            self.backend.model().item(1).setEnabled(False)
            self.backend.setItemData(1, f"CUDA unavailable: {cuda_reason}", Qt.ToolTipRole)
        self.workload = QComboBox()
        self.workload.setMinimumWidth(130)
        self.workload.setSizeAdjustPolicy(QComboBox.AdjustToContents)
        self.repeat = QSpinBox()
        self.repeat.setRange(1, 1_000_000)
        self.repeat.setValue(20)
        self.repeat.setToolTip("Launches of every task per workload")
        self.mode = QComboBox()  # assembly mode (docs/assembly_modes.md)
        self.mode.addItems(["per_task", "whole", "culink"])
        self.mode.setToolTip("per_task: one PTX module per task · whole: one per kernel · "
                             "culink: per-task cubins (ptxas) linked into one module per kernel")
        # the commands first, the settings after them: in a narrow window (800 px) what does not fit goes
        # into the toolbar's overflow menu from the right, and that must never be Run, Stop or Bench & save
        self.addAction(self.compile)
        self.addAction(self.reload)
        self.addAction(self.run)
        self.addAction(self.stop)
        self.settings_at = self.addSeparator()   # Bench & save and its name field go in before this
        for label, w in ((" Backend ", self.backend), (" Mode ", self.mode), (" Workload ", self.workload),
                         (" Repeat ", self.repeat)):
            self.addWidget(QLabel(label))
            self.addWidget(w)
