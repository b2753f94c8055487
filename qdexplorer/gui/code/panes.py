"""The Panes page: any number of code panes side by side, each showing the (task, stage, code) of
its own choosing, or a diff of two such choices; a pane is pinned to a task or follows the selection.

The choices are `project.panes` data (PaneView, PaneSpec, PaneLayout): the page saves them with the
project and restores them on open, and exports / imports them as a small JSON file. Texts come from
a `PaneSource` (the window's: the session's compiled tasks, the engine for SASS, the run history
for what a saved run measured), asked with a callback so a slow one (SASS) never blocks.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QHBoxLayout, QLabel, QPushButton, QSplitter,
                               QToolButton, QVBoxLayout, QWidget)

from ...ir.errors import QdError
from ...project.panes import (STAGES, PaneLayout, PaneSpec, PaneView, export_layout, import_layout, load_layout,
                              save_layout)
from .diff_view import DiffView
from .editor import CodeEditor

FOLLOW = "(follow the selection)"
CODES = (("current", "in use now"), ("generated", "generated"))
LANG = {"source": "python", "ll": "llvm", "ptx": "ptx", "sass": "ptx"}


class PaneSource(Protocol):
    def forget_runs(self) -> None: ...
    def tasks(self) -> list[str]: ...
    def runs(self) -> list[str]: ...
    def text(self, view: PaneView, task: str, done: Callable[[str], None]) -> None: ...


class ViewPicker(QWidget):
    """One view's choice: task (or follow), stage, code, SASS architecture."""
    changed = Signal()

    def __init__(self, view: PaneView, parent=None):
        super().__init__(parent)
        self.task, self.stage, self.code, self.arch = QComboBox(), QComboBox(), QComboBox(), QComboBox()
        self.task.setMinimumContentsLength(18)
        self.task.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.stage.addItems(STAGES)
        self.arch.setEditable(True)
        self.arch.addItems(["(task's)", "sm_80", "sm_90", "sm_100", "sm_120"])
        self.arch.setToolTip("SASS: the GPU architecture to assemble for")
        h = QHBoxLayout(self)
        h.setContentsMargins(0, 0, 0, 0)
        for w in (self.task, self.stage, self.code, self.arch):
            h.addWidget(w)
        self._view = view
        self.set_choices([], [])
        for c in (self.task, self.stage, self.code):
            c.currentIndexChanged.connect(lambda _: self._changed())
        self.arch.currentTextChanged.connect(lambda _: self._changed())

    def set_choices(self, tasks: list[str], runs: list[str]):
        view = self._view
        for c in (self.task, self.stage, self.code, self.arch):
            c.blockSignals(True)
        self.task.clear()
        self.task.addItem(FOLLOW, None)
        for t in dict.fromkeys(tasks + ([view.task] if view.task else [])):
            self.task.addItem(t, t)
        self.task.setCurrentIndex(max(0, self.task.findData(view.task)) if view.task else 0)
        self.stage.setCurrentText(view.stage)
        self.code.clear()
        for key, label in CODES:
            self.code.addItem(label, key)
        for r in dict.fromkeys(runs + ([view.code[4:]] if view.code.startswith("run:") else [])):
            self.code.addItem(f"run {r}", f"run:{r}")
        self.code.setCurrentIndex(max(0, self.code.findData(view.code)))
        self.arch.setCurrentText(view.arch or "(task's)")
        self.arch.setVisible(view.stage == "sass")
        for c in (self.task, self.stage, self.code, self.arch):
            c.blockSignals(False)

    def view(self) -> PaneView:
        return self._view

    def _changed(self):
        arch = self.arch.currentText().strip()
        self._view = PaneView(self.task.currentData(), self.stage.currentText(), self.code.currentData() or "current",
                              arch if arch.startswith("sm_") else None)
        self.arch.setVisible(self._view.stage == "sass")
        self.changed.emit()


class CodePane(QFrame):
    """One pane: a view (an editor) or a diff of two views (a DiffView)."""
    close_requested = Signal(object)
    changed = Signal()

    def __init__(self, spec: PaneSpec, source: PaneSource, parent=None):
        super().__init__(parent)
        self.setFrameShape(QFrame.StyledPanel)
        self.source = source
        self.selected: str | None = None
        self.pickers = [ViewPicker(spec.view)] + ([ViewPicker(spec.other)] if spec.other is not None else [])
        self.title = QLabel("")
        self.title.setMinimumWidth(40)
        close = QToolButton()
        close.setText("×")
        close.setToolTip("Close this pane")
        close.clicked.connect(lambda: self.close_requested.emit(self))
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(close)
        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        v.addLayout(top)
        for i, p in enumerate(self.pickers):
            row = QHBoxLayout()
            if len(self.pickers) > 1:
                row.addWidget(QLabel("AB"[i]))
            row.addWidget(p, 1)
            v.addLayout(row)
            p.changed.connect(self._picked)
        if spec.other is None:
            self.editor: CodeEditor | None = CodeEditor(LANG[spec.view.stage], True)
            self.diff: DiffView | None = None
            v.addWidget(self.editor, 1)
        else:
            self.editor, self.diff = None, DiffView()
            v.addWidget(self.diff, 1)
        self._texts: list[str | None] = [None] * len(self.pickers)

    def spec(self) -> PaneSpec:
        views = [p.view() for p in self.pickers]
        return PaneSpec(views[0], views[1] if len(views) > 1 else None)

    def set_choices(self, tasks: list[str], runs: list[str]):
        for p in self.pickers:
            p.set_choices(tasks, runs)

    def show_selection(self, task: str | None):
        self.selected = task
        if any(not p.view().pinned for p in self.pickers):
            self.refresh()

    def refresh(self):
        spec = self.spec()
        self.title.setText(spec.view.title(self.selected) + (f"  ⟷  {spec.other.title(self.selected)}"
                                                             if spec.other else ""))
        if self.editor is not None:
            self.editor.highlighter.set_language(LANG[spec.view.stage])
        self._texts = [None] * len(self.pickers)
        for i, view in enumerate([spec.view] + ([spec.other] if spec.other else [])):
            task = view.task or self.selected
            if not task:
                self._show(i, view, "(select a task: this pane follows the selection)")
                continue
            self.source.text(view, task, lambda text, i=i, view=view: self._show(i, view, text))

    def _show(self, i: int, view: PaneView, text: str):
        if self.spec().view != view and (self.spec().other != view):
            return   # an answer for a choice the user has since changed
        self._texts[i] = text
        if self.editor is not None:
            self.editor.set_text_keep_view(text)
        elif self.diff is not None and all(t is not None for t in self._texts):
            spec = self.spec()
            names = ("A " + spec.view.title(self.selected), "B " + (spec.other.title(self.selected) if spec.other else ""))
            self.diff.set_texts(self._texts[0] or "", self._texts[1] or "", names)

    def texts(self) -> list[str | None]:
        return list(self._texts)

    def _picked(self):
        self.refresh()
        self.changed.emit()


class PaneArea(QWidget):
    """The Panes page: a bar (add a pane, add a diff, export / import the layout) over the panes."""
    layout_changed = Signal()
    message = Signal(str)

    def __init__(self, source: PaneSource, parent=None):
        super().__init__(parent)
        self.source = source
        self.project: str | None = None
        self.selected: str | None = None
        self.panes: list[CodePane] = []
        self.split = QSplitter(Qt.Horizontal)
        self.split.setChildrenCollapsible(False)
        self.hint = QLabel("No panes yet: add one to show any task's source, LLVM IR, PTX or SASS — from now, "
                           "from the compiler, or from a saved run — beside others, or a diff of two.")
        self.hint.setWordWrap(True)
        bar = QHBoxLayout()
        self.add_btn, self.diff_btn = QPushButton("Add pane"), QPushButton("Add diff")
        self.export_btn, self.import_btn = QPushButton("Export layout…"), QPushButton("Import layout…")
        self.add_btn.setToolTip("A pane following the selection (pick a task in it to pin it)")
        self.diff_btn.setToolTip("A diff of two choices: two tasks, two stages, the code now against a saved run's")
        for b in (self.add_btn, self.diff_btn, self.export_btn, self.import_btn):
            bar.addWidget(b)
        bar.addStretch(1)
        v = QVBoxLayout(self)
        v.addLayout(bar)
        v.addWidget(self.hint)
        v.addWidget(self.split, 1)
        self.add_btn.clicked.connect(lambda: self.add(PaneSpec(PaneView())))
        self.diff_btn.clicked.connect(lambda: self.add(PaneSpec(PaneView(), PaneView(code="generated"))))
        self.export_btn.clicked.connect(lambda: self.export_to())
        self.import_btn.clicked.connect(lambda: self.import_from())
        self.split.splitterMoved.connect(lambda *_: self.layout_changed.emit())

    # ---- panes
    def add(self, spec: PaneSpec) -> CodePane:
        pane = CodePane(spec, self.source)
        pane.set_choices(self.source.tasks(), self.source.runs())
        pane.close_requested.connect(self.remove)
        pane.changed.connect(self.layout_changed)
        self.panes.append(pane)
        self.split.addWidget(pane)
        self.hint.setVisible(False)
        pane.show_selection(self.selected)
        pane.refresh()
        self.layout_changed.emit()
        return pane

    def pin(self, task: str | None, stage: str = "ptx", arch: str | None = None) -> CodePane | None:
        """A pane pinned to `task` at `stage` (View ▸ Pin in a Pane: what the Kernels page shows now)."""
        return self.add(PaneSpec(PaneView(task, stage, "current", arch if stage == "sass" else None))) if task else None

    def remove(self, pane: CodePane):
        if pane in self.panes:
            self.panes.remove(pane)
            pane.setParent(None)
            pane.deleteLater()
            self.hint.setVisible(not self.panes)
            self.layout_changed.emit()

    def clear(self):
        for p in list(self.panes):
            self.remove(p)

    # ---- what the window tells
    def follow(self, task: str | None):
        self.selected = task
        for p in self.panes:
            p.show_selection(task)

    def set_choices(self):
        tasks, runs = self.source.tasks(), self.source.runs()
        for p in self.panes:
            p.set_choices(tasks, runs)

    def refresh(self):
        for p in self.panes:
            p.refresh()

    # ---- the layout, saved with the project
    def open_project(self, project: str) -> None:
        """Another project: the one left keeps its layout, this one's is restored (none: no panes)."""
        self.save()
        self.project = project
        self.source.forget_runs()
        self.restore(load_layout(project))

    def save(self) -> None:
        if self.project is None:
            return
        try:
            save_layout(self.project, self.current_layout())
        except (OSError, QdError) as e:   # a read-only disk keeps the window working
            self.message.emit(f"pane layout not saved: {e}")

    def current_layout(self) -> PaneLayout:
        return PaneLayout([p.spec() for p in self.panes], list(self.split.sizes()) if self.panes else [])

    def restore(self, layout: PaneLayout | None):
        self.clear()
        for spec in (layout.panes if layout else []):
            self.add(spec)
        if layout and layout.sizes and len(layout.sizes) == len(self.panes):
            self.split.setSizes(layout.sizes)

    def export_to(self, path: str | None = None):
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Export pane layout", "panes.json", "Pane layout (*.json)")
            if not path:
                return None
        return export_layout(path, self.current_layout())

    def import_from(self, path: str | None = None):
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self, "Import pane layout", "", "Pane layout (*.json)")
            if not path:
                return
        try:
            self.restore(import_layout(path))
        except QdError as e:
            self.hint.setText(str(e))
            self.hint.setVisible(True)
            return
        self.layout_changed.emit()
