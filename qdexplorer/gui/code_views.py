"""Source, LLVM IR and PTX of the selected task; the PTX view is editable and runs as an override."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QTabWidget, QVBoxLayout,
                               QWidget)

from .highlight import PygmentsHighlighter


def code_editor(language: str, read_only: bool) -> QPlainTextEdit:
    ed = QPlainTextEdit()
    font = QFontDatabase.systemFont(QFontDatabase.FixedFont)
    font.setStyleHint(QFont.Monospace)
    ed.setFont(font)
    ed.setReadOnly(read_only)
    ed.setLineWrapMode(QPlainTextEdit.NoWrap)
    ed.highlighter = PygmentsHighlighter(ed.document(), language)
    return ed


class CodeViews(QTabWidget):
    save_override = Signal(str, str)   # (task, ptx text)
    revert_override = Signal(str)      # task
    compare_generated = Signal(str)    # task: time its override against the generated code

    def __init__(self, parent=None):
        super().__init__(parent)
        self.task: str | None = None
        self.source = code_editor("python", True)
        self.llvm = code_editor("llvm", True)
        self.ptx = code_editor("ptx", False)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        ptx_page = QWidget()
        v = QVBoxLayout(ptx_page)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.ptx)
        bar = QHBoxLayout()
        self.override_label = QLabel("generated PTX")
        self.resources_label = QLabel("")
        self.resources_label.setToolTip("From cuFuncGetAttribute and the occupancy calculator after the last CUDA load")
        self.save_btn = QPushButton("Run this PTX (save override)")
        self.save_btn.setToolTip("Saves <project>/.qdexplorer/overrides/<task>.ptx; it replaces the generated "
                                 "PTX at the next load")
        self.revert_btn = QPushButton("Revert to generated")
        self.compare_btn = QPushButton("Compare with generated")
        self.compare_btn.setToolTip("Time the override against the generated PTX, interleaved round by round")
        self.compare_btn.setEnabled(False)
        bar.addWidget(self.override_label, 1)
        bar.addWidget(self.resources_label)
        bar.addWidget(self.save_btn)
        bar.addWidget(self.revert_btn)
        bar.addWidget(self.compare_btn)
        v.addLayout(bar)
        self.addTab(self.source, "Source")
        self.addTab(self.llvm, "LLVM IR")
        self.addTab(ptx_page, "PTX")
        self.addTab(self.log, "Compile log")
        self.save_btn.clicked.connect(lambda: self.task and self.save_override.emit(self.task, self.ptx.toPlainText()))
        self.revert_btn.clicked.connect(lambda: self.task and self.revert_override.emit(self.task))
        self.compare_btn.clicked.connect(lambda: self.task and self.compare_generated.emit(self.task))
        self.ptx.textChanged.connect(self._edited)
        self._loading = False

    def show_resources(self, res: dict | None):
        if not res:
            self.resources_label.setText("")
            return
        self.resources_label.setText(f"{res['registers']} regs · {res['static_shared_bytes']} B shared · "
                                     f"{res['local_bytes']} B local · block {res['block']} · "
                                     f"occupancy {res['occupancy']:.0%}")

    def show_task(self, task, compiled):
        """`task` is the ir.Task, `compiled` its CompiledTask for nvptx (or None before compile)."""
        self._loading = True
        self.task = task.name
        self.source.setPlainText(f"# {task.file}:{task.lines[0]}-{task.lines[1]}\n{task.source}")
        if compiled is not None:
            self.llvm.setPlainText(compiled.ll or compiled.error)
            self.ptx.setPlainText(compiled.ptx or compiled.error)
            self.log.setPlainText("\n".join(list(compiled.log) + ([compiled.error] if compiled.error else [])))
            state = {None: "generated PTX", "active": "override active",
                     "unknown": "override active (its sidecar is missing: staleness unknown)",
                     "stale": "override STALE: the generated PTX changed since it was written"}[compiled.override]
            fast = getattr(compiled.module, "fast_math", None)
            math = "" if fast is None or compiled.target != "nvptx" else f"  ·  fast math {'on' if fast else 'off'}"
            self.override_label.setText(f"{state}  ·  cache tier: {compiled.tier}  ·  {len(compiled.output)} bytes{math}")
            self.revert_btn.setEnabled(compiled.override is not None)
            self.compare_btn.setEnabled(compiled.override is not None)
        else:
            self.llvm.setPlainText("(compiling…)")
            self.ptx.setPlainText("(compiling…)")
        self._loading = False

    def _edited(self):
        if not self._loading and self.task:
            self.override_label.setText("edited — not saved: press 'Run this PTX' to use it")
