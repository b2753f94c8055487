"""A kernel's CHI IR passes, one step at a time, with the diff against the step before.

Compiler Explorer's pass view: the stages on the left (with +added/−removed lines), the chosen
stage's diff (or its full text) on the right, ◀/▶ to step. The data comes from the Qt-free
`qdexplorer.quadrants.passes`.
"""
from __future__ import annotations

from pygments.lexers import DiffLexer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton,
                               QSplitter, QVBoxLayout, QWidget)

from ...quadrants.passes import pass_steps
from .editor import CodeEditor


class PassesView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.steps = []
        self.kernel_name = ""
        self.stages = QListWidget()
        self.stages.setMinimumWidth(250)
        self.text = CodeEditor("llvm", True)
        self.text.highlighter.lexer = DiffLexer()
        self.title = QLabel("select a kernel (or one of its tasks) to see its CHI IR passes")
        self.prev_btn = QPushButton("◀ Previous pass")
        self.next_btn = QPushButton("Next pass ▶")
        self.full = QCheckBox("full text")
        self.full.setToolTip("Show the whole stage instead of the diff against the stage before")
        self.renumber = QCheckBox("ignore $N renumbering")
        self.renumber.setChecked(True)
        self.renumber.setToolTip("Quadrants renumbers statements in every pass; rename them in order before diffing")
        bar = QHBoxLayout()
        for w in (self.prev_btn, self.next_btn, self.full, self.renumber):
            bar.addWidget(w)
        bar.addStretch(1)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.setContentsMargins(0, 0, 0, 0)
        rv.addWidget(self.title)
        rv.addLayout(bar)
        rv.addWidget(self.text)
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.stages)
        split.addWidget(right)
        split.setSizes([260, 800])
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.stages.currentRowChanged.connect(self._show)
        self.prev_btn.clicked.connect(lambda: self.step(-1))
        self.next_btn.clicked.connect(lambda: self.step(+1))
        self.full.toggled.connect(lambda: self._show(self.stages.currentRow()))
        self.renumber.toggled.connect(lambda: self.set_kernel(self._kernel, keep_row=True))
        self._kernel = None

    def set_kernel(self, kernel, keep_row: bool = False):
        row = self.stages.currentRow() if keep_row else -1
        self._kernel = kernel
        self.steps = pass_steps(kernel, renumber=self.renumber.isChecked()) if kernel is not None else []
        self.kernel_name = kernel.name if kernel is not None else ""
        self.stages.blockSignals(True)
        self.stages.clear()
        for s in self.steps:
            label = s.stage if s.previous is None else f"{s.stage}   +{s.added} −{s.removed}"
            it = QListWidgetItem(label)
            it.setToolTip(f"{self.kernel_name}_{s.stage}.ll")
            self.stages.addItem(it)
        self.stages.blockSignals(False)
        if not self.steps:
            self.title.setText(f"{self.kernel_name}: no CHI IR stages were dumped" if kernel else "")
            self.text.setPlainText("")
            return
        self.stages.setCurrentRow(row if 0 <= row < len(self.steps) else len(self.steps) - 1)
        self._show(self.stages.currentRow())

    def step(self, delta: int):
        row = self.stages.currentRow() + delta
        if 0 <= row < len(self.steps):
            self.stages.setCurrentRow(row)

    def _show(self, row: int):
        if not 0 <= row < len(self.steps):
            return
        s = self.steps[row]
        self.prev_btn.setEnabled(row > 0)
        self.next_btn.setEnabled(row < len(self.steps) - 1)
        if self.full.isChecked() or s.previous is None:
            self.title.setText(f"{self.kernel_name}: {s.stage} (full text)")
            self.text.setPlainText(s.text)
        else:
            self.title.setText(f"{self.kernel_name}: {s.previous} → {s.stage}: +{s.added} −{s.removed} lines")
            self.text.setPlainText(s.diff or "(no change)")
