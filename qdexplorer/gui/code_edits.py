"""The code views' commands: save or revert an override (PTX or LLVM IR), profile a task's counters,
Ctrl+S and Find from anywhere in the window.

A part of its own because each is the same round: a job on the engine thread, a recompile, a line
in Messages, and for a saved PTX edit optionally an A/B profile; none of it is layout.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Slot

from .bridge import EngineBridge
from .code.code_views import CodeViews
from .plumbing.workers import error_text


class CodeEdits(QObject):
    """`compile` recompiles every task (the window's command); `failed(what, error)` reports one."""

    def __init__(self, bridge: EngineBridge, views: CodeViews, compile: Callable[[], None],
                 log: Callable[[str], None], failed: Callable[[str, Exception], None], parent: QObject | None = None):
        super().__init__(parent)
        self.bridge, self.views, self.compile, self.log, self.failed = bridge, views, compile, log, failed

    @Slot(str, str)
    def save_override(self, task, text):
        self.bridge.submit(lambda eng: eng.set_override(task, text, kind="ptx"),
                           returned=lambda path: self.log(f"{task}: override saved to {path}"),
                           errored=lambda e: self.failed("override", e))
        self.compile()
        if self.views.counters.on_save.isChecked():
            self.profile(task, self.views.counters.preset.currentText(), "ab")

    @Slot(str, str, str)
    def profile(self, task, preset, side):
        """Counters of `task` under ncu on the engine thread; side 'ab': generated against the PTX in use."""
        n = self.views.counters.repeats.value()   # profiles a side in an A/B: each Δ is changed or noise

        def job(eng):
            if side == "ab":
                return (eng.counters(task, preset, side="generated", repeats=n),
                        eng.counters(task, preset, side="current", repeats=n))
            return eng.counters(task, preset), None

        def done(pair):
            self.views.show_counters(*pair)
            res = pair[1] or pair[0]
            self.log(f"{task}: counters ({preset}): " + ("ok" if res.ok else res.message))

        def failed(e):
            self.views.counters.set_busy(False)
            self.views.counters.status.setText(f"cannot profile {task}: {error_text(e)}")
            self.failed("counters", e)
        self.bridge.submit(job, returned=done, errored=failed)

    @Slot(str, str)
    def save_ll_override(self, task, text):
        self.bridge.submit(lambda eng: eng.set_override(task, text, kind="ll", target="nvptx"),
                           returned=lambda path: self.log(f"{task}: LLVM-IR override saved to {path}"),
                           errored=lambda e: self.failed("override", e))
        self.compile()

    @Slot(str)
    def revert_override(self, task):
        self.bridge.submit(lambda eng: eng.revert_override(task), errored=lambda e: self.failed("revert", e))
        self.compile()

    def save_ptx(self):
        """Ctrl+S: the PTX tab's Save & use, from anywhere in the window."""
        self.views.setCurrentWidget(self.views.ptx_panel)
        self.views.ptx_panel.save()

    def find(self):
        v = self.views
        w = v.currentWidget()
        pane = {v.source_pane: v.source_pane, v.ptx_panel: v.ptx_panel.pane, v.sass_pane: v.sass_pane}.get(w)
        if w is v.ir_split:
            pane = v.llvm_pane
        if pane is not None:
            pane.find_bar.open_bar()
