"""The Run toolbar: Compile, Reload, then where and how Run launches (backend, assembly mode,
workload, repeat), Run and Stop before them. The widgets are the window's attributes, which its
commands and the saved settings read; the actions come from the menus, so the toolbar, the
menus and the shortcuts reach the same code."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QSpinBox, QToolBar

from .menus import build_menus


def build_run_toolbar(win, cuda_reason: str = ""):
    tb = QToolBar("Run")
    tb.setObjectName("run-toolbar")
    tb.setMovable(False)
    win.addToolBar(tb)
    win.toolbar = tb
    win.backend = QComboBox()
    win.backend.addItems(["cpu", "cuda"])
    win.backend.setToolTip("Where Run launches the tasks")
    if cuda_reason:
        win.backend.model().item(1).setEnabled(False)
        win.backend.setItemData(1, f"CUDA unavailable: {cuda_reason}", Qt.ToolTipRole)
    win.workload = QComboBox()
    win.workload.setMinimumWidth(130)
    win.workload.setSizeAdjustPolicy(QComboBox.AdjustToContents)
    win.repeat = QSpinBox()
    win.repeat.setRange(1, 1_000_000)
    win.repeat.setValue(20)
    win.repeat.setToolTip("Launches of every task per workload")
    win.mode = QComboBox()  # assembly mode (docs/assembly_modes.md)
    win.mode.addItems(["per_task", "whole", "culink"])
    win.mode.setToolTip("per_task: one PTX module per task · whole: one per kernel · "
                        "culink: per-task cubins (ptxas) linked into one module per kernel")
    build_menus(win)  # actions: compile_act, run_act, stop_act, reload_act, open_act, ...
    # the commands first, the settings after them: in a narrow window (800 px) what does not fit goes
    # into the toolbar's overflow menu from the right, and that must never be Run, Stop or Bench & save
    tb.addAction(win.compile_act)
    tb.addAction(win.reload_act)
    tb.addAction(win.run_act)
    tb.addAction(win.stop_act)
    win.run_settings_at = tb.addSeparator()   # Bench & save and its name field go in before this
    for label, w in ((" Backend ", win.backend), (" Mode ", win.mode), (" Workload ", win.workload),
                     (" Repeat ", win.repeat)):
        tb.addWidget(QLabel(label))
        tb.addWidget(w)
    return tb
