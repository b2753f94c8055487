"""The PTX editing loop of one task: edit, check with ptxas, see the diff, save as the override, revert.

The panel takes the session and reads each task's generated PTX and saved override from its
CompiledTask there; what it keeps of its own is only what the session cannot know: unsaved edits
(drafts, per task, so selecting another task or a recompile never loses them) and the last ptxas
report on a draft. Only Revert (after asking) or a successful save ends a draft. Saving checks the
PTX with ptxas first (off the GUI thread): errors become markers at their lines and rows in the
list, and an edit ptxas refuses is still saved only if the user insists. The driver's JIT log
after a CUDA load is mapped to lines the same way. On the CPU backend the panel says plainly that
overrides run on CUDA only.
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMessageBox, QPushButton,
                               QSplitter, QTabWidget, QVBoxLayout, QWidget)

from ...compiler import ptxas
from ...compiler.artifacts import CompiledTask
from ...session import Session
from .diff_view import DiffView
from .editor import EditorPane, Marker
from ..plumbing.workers import Lane, error_text


class PtxPanel(QWidget):
    save_requested = Signal(str, str)     # (task, PTX text): write it as the task's override
    revert_requested = Signal(str)        # task: delete its override
    validated = Signal(str, object)       # (task, PtxasReport | Exception), after every check

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.task: str | None = None
        self.backend = "cpu"
        self.drafts: dict[str, str] = {}         # task → unsaved edit
        self.reports: dict[str, object] = {}     # task → last PtxasReport (or the Exception of a failed check)
        self.checked: dict[str, str] = {}        # task → the text that report is about
        self.status: str | None = None
        self._pending_save: dict[str, str] = {}
        self._loading = False
        self._shown: str | None = None
        self.checks = Lane("ptxas-check", threads=1, parent=self)

        self.pane = EditorPane("ptx", read_only=False)
        self.editor = self.pane.editor
        self.diff = DiffView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.pane, "Edit")
        self.tabs.addTab(self.diff, "Diff vs generated")
        self.problems = QListWidget()
        self.problems.setMaximumHeight(72)
        self.problems.itemActivated.connect(self._goto_problem)
        self.problems.itemClicked.connect(self._goto_problem)
        self.state = QLabel("generated PTX")
        self.state.setMinimumWidth(40)  # a line of its own, the pane's full width: never cut to "· ptx"
        self.state.setContentsMargins(4, 0, 4, 0)
        self.notice = QLabel("")
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("QLabel { padding: 3px 6px; border-radius: 3px; background: #fff4ce; color: #5c4400; }")
        self.validate_btn = QPushButton("Check")
        self.validate_btn.setToolTip("Check with ptxas (Ctrl+Shift+C): errors at their lines, registers and spills")
        self.save_btn = QPushButton("Save && use")
        self.save_btn.setToolTip("Ctrl+S: check with ptxas, then save <project>/.qdexplorer/overrides/<task>.ptx; it replaces "
                                 "the generated PTX at the next CUDA load")
        self.revert_btn = QPushButton("Revert")
        self.revert_btn.setToolTip("Back to the generated PTX: drops the edit (asks first) and the saved override")
        bar = self.bar = QHBoxLayout()   # the buttons, right-aligned (code_views adds Compare)
        bar.addStretch(1)
        for b in (self.validate_btn, self.save_btn, self.revert_btn):
            bar.addWidget(b)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.tabs)
        split.addWidget(self.problems)
        split.setStretchFactor(0, 5)
        split.setStretchFactor(1, 1)
        split.setChildrenCollapsible(False)
        v = QVBoxLayout(self)
        v.setContentsMargins(0, 0, 0, 0)
        v.addWidget(self.notice)
        v.addWidget(split, 1)
        v.addWidget(self.state)
        v.addLayout(bar)
        self.problems.hide()
        self.notice.hide()

        self.editor.textChanged.connect(self._edited)
        self.validate_btn.clicked.connect(self.validate)
        self.save_btn.clicked.connect(self.save)
        self.revert_btn.clicked.connect(self.revert)
        self.tabs.currentChanged.connect(lambda i: i == 1 and self._refresh_diff())
        self.update_state()

    # ---- what the session knows of a task
    def compiled(self, task: str | None = None) -> CompiledTask | None:
        task = task or self.task
        return self.session.compiled_task(task, "nvptx") if task else None

    def generated(self, task: str | None = None) -> str:
        """The PTX the compiler made (culink: the PTX before ptxas), or its error."""
        ct = self.compiled(task)
        if ct is None:
            return ""
        a = ct.produced.get("ptx")
        return a.text if a is not None else ct.error

    def saved(self, task: str | None = None) -> str:
        """The task's PTX override in effect ("" when none)."""
        ct = self.compiled(task)
        a = ct.used.get("ptx") if ct is not None else None
        return a.text if a is not None and a.origin != "generated" else ""

    # ---- what the window tells the panel
    def set_session(self, session: Session):
        """A newly opened project's session: the drafts and reports of the old one go with it."""
        self.session = session
        self.task = self._shown = None
        self.drafts.clear()
        self.reports.clear()
        self.checked.clear()
        self._pending_save.clear()
        self.update_state()

    def set_backend(self, backend: str):
        self.backend = backend
        self._update_notice()

    def show_task(self, task: str, status: str | None = None):
        """Show `task` as the session has it; a draft of it (from before a recompile or a detour)
        wins. `status` is the line shown while there is no unsaved edit (the code views compose it)."""
        self.task = task
        self.status = status
        text = self.drafts.get(task, self.saved(task) or self.generated(task))
        self._loading = True
        if task == self._shown:
            self.editor.set_text_keep_view(text)
        else:
            self.editor.setPlainText(text)
        self._shown = task
        self._loading = False
        self._show_report(self.reports.get(task) if self.checked.get(task) == text else None)
        self.update_state()
        self._update_notice()
        if self.tabs.currentIndex() == 1:
            self._refresh_diff()

    def show_driver_log(self, task: str, log: str):
        """The driver's JIT error log of a failed CUDA load, as markers at the lines it names."""
        diags = ptxas.parse_diagnostics(log)
        if task == self.task and diags:
            self._show_diagnostics(diags, "driver")

    # ---- user actions
    def shutdown(self):
        self.checks.shutdown(2000)

    def dirty(self, task: str | None = None) -> bool:
        task = task or self.task
        return task in self.drafts

    def dirty_tasks(self) -> list[str]:
        return list(self.drafts)

    def validate(self):
        if self.task:
            self._start_check(self.task, self.editor.toPlainText())

    def save(self):
        """Check first; the override is written when ptxas accepts (or the user overrules it)."""
        if not self.task:
            return
        text = self.editor.toPlainText()
        self._pending_save[self.task] = text
        self._start_check(self.task, text)

    def revert(self):
        """Back to the generated PTX: asks first when that loses work (an unsaved edit, a saved override)."""
        if not self.task:
            return
        if self.saved():
            what = "the unsaved edit and the saved override" if self.dirty() else "the saved override"
            if not self.ask("Delete the saved override?", f"Reverting {self.task} deletes {what}; the "
                            "generated PTX is used again from the next compile.", "Delete override"):
                return
        elif self.dirty() and not self.confirm_discard([self.task]):
            return
        self.drafts.pop(self.task, None)
        self.reports.pop(self.task, None)
        self._loading = True
        self.editor.set_text_keep_view(self.generated())
        self._loading = False
        self._show_report(None)
        if self.saved():
            self.revert_requested.emit(self.task)
        self.update_state()

    def confirm_discard(self, tasks: list[str]) -> bool:
        """Ask before unsaved edits go; tests replace `ask` to answer."""
        names = ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")
        return self.ask("Discard unsaved PTX edits?", f"Unsaved PTX edits of {names} will be lost.", "Discard edits")

    def ask(self, title: str, text: str, yes: str) -> bool:
        """A question whose answer button says what it does (`yes`); Cancel is the default."""
        box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Cancel, self)
        go = box.addButton(yes, QMessageBox.AcceptRole)
        box.setDefaultButton(QMessageBox.Cancel)
        box.exec()
        return box.clickedButton() is go

    # ---- internals
    def _edited(self):
        if self._loading or not self.task:
            return
        text = self.editor.toPlainText()
        if text == (self.saved() or self.generated()):
            self.drafts.pop(self.task, None)
        else:
            self.drafts[self.task] = text
        self.update_state()

    def _start_check(self, task, text):
        self.state.setText("checking with ptxas…")
        self.validate_btn.setEnabled(False)
        ct = self.compiled(task)
        arch = ct.arch if ct is not None else None
        self.checks.submit(ptxas.validate, text, arch, returned=lambda rep: self._on_validated(task, text, rep),
                           errored=lambda e: self._on_validated(task, text, e))  # no ptxas, a timeout: shown

    def _on_validated(self, task, text, rep):
        self.validate_btn.setEnabled(True)
        self.reports[task], self.checked[task] = rep, text
        pending = self._pending_save.pop(task, None)
        if task == self.task and self.editor.toPlainText() == text:
            self._show_report(rep)
        self.validated.emit(task, rep)
        if pending is not None and pending == text:
            refused = not isinstance(rep, Exception) and not rep.ok
            if refused and not self.ask("ptxas refused this PTX",
                                        f"{len(rep.errors)} error(s), first: {rep.errors[0]}\n\n"
                                        "Save it as the override anyway? The driver will likely refuse it "
                                        "too, and its log will be shown at the lines it names.", "Save anyway"):
                self.update_state()
                return
            self.drafts.pop(task, None)
            self.save_requested.emit(task, text)
        self.update_state()

    def _show_report(self, rep):
        if rep is None:
            self.editor.set_markers([])
            self.problems.clear()
            self.problems.hide()
            return
        if isinstance(rep, Exception):
            self.editor.set_markers([])
            self.problems.clear()
            self.problems.addItem(f"not checked: {error_text(rep)}")
            self.problems.show()
            return
        self._show_diagnostics(rep.diagnostics, "ptxas", rep)

    def _show_diagnostics(self, diags, source, rep=None):
        self.editor.set_markers([Marker(d.line, d.severity, d.message) for d in diags if d.line])
        self.problems.clear()
        for d in diags:
            it = QListWidgetItem(f"{source}: {d}")
            it.setData(Qt.UserRole, d.line or 0)
            self.problems.addItem(it)
        if rep is not None and rep.ok:
            res = rep.resources.get(self.task) or next(iter(rep.resources.values()), None)
            if res is not None:
                self.problems.addItem(f"ptxas {rep.arch}: OK · {res.registers} registers · {res.spills} B spills · "
                                      f"{res.shared_bytes} B shared · {res.local_bytes + res.stack_bytes} B local")
        self.problems.setVisible(self.problems.count() > 0)
        first = next((d.line for d in diags if d.line and d.severity in ("error", "fatal")), None)
        if first:
            self.editor.goto_line(first)

    def _goto_problem(self, item):
        line = item.data(Qt.UserRole)
        if line:
            self.tabs.setCurrentIndex(0)
            self.editor.goto_line(line)
            self.editor.setFocus()

    def _refresh_diff(self):
        if self.task:
            self.diff.set_texts(self.generated(), self.editor.toPlainText())

    def update_state(self):
        t = self.task
        if not t:
            self.state.setText("no task selected")
            for b in (self.validate_btn, self.save_btn, self.revert_btn):
                b.setEnabled(False)
            return
        self.validate_btn.setEnabled(True)
        self.save_btn.setEnabled(True)
        self.revert_btn.setEnabled(self.dirty() or bool(self.saved()))
        ct = self.compiled()
        if self.dirty():
            text = "edited, unsaved"
        elif self.status:
            text = self.status
        elif self.saved():
            text = {"stale": "override STALE: generated PTX changed since"}.get(
                ct.override if ct is not None else None, "override saved")
        else:
            text = "generated PTX"
        rep = self.reports.get(t)
        if rep is not None and not isinstance(rep, Exception) and self.checked.get(t) == self.editor.toPlainText():
            text += " · ptxas: OK" if rep.ok else f" · ptxas: {len(rep.errors)} error(s)"
        self.state.setText(text)
        self._update_notice()

    def _update_notice(self):
        if self.backend != "cuda" and self.task and (self.saved() or self.dirty()):
            self.notice.setText("PTX overrides take effect on CUDA only: the CPU backend runs host code built "
                                "from the kernel source. ptxas still checks this PTX.")
            self.notice.show()
        else:
            self.notice.hide()
