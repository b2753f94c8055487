"""A real Quadrants program in the window: its kernels and tasks, their IR/PTX, passes, edits and timings.

File ▸ Open Quadrants program… opens one of these per program. Everything that runs the program
(`qdexplorer.quadrants`) happens on a background thread, in a child process; the window only
shows the `QuadrantsRun` it gets back. The program's stderr goes to the main window's Messages.
"""
from __future__ import annotations

import json
import os
import shlex
import statistics

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QLineEdit, QMainWindow,
                               QPlainTextEdit, QPushButton, QSplitter, QTabWidget,
                               QToolBar, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from ...quadrants.compare import edit_and_rerun
from ...quadrants.edits import EditFolder, default_edit_folder, edit_states
from ...quadrants.model import run_from_dict
from ...quadrants.ours import compare_with_ours, run_ours
from ...quadrants.program import run_program
from ..code.editor import CodeEditor
from ..code.passes_view import PassesView
from .quadrants_compare import ComparisonPanel, fmt_ms
from ..plumbing.workers import Lane, error_text
from ...wording import plural

COLUMNS = ["Kernel / task", "Type", "Launches", "Median", "Edited", "Edited / generated", "IR bytes",
           "PTX bytes", "Edit"]
TASK_ROLE = Qt.UserRole + 1
KERNEL_ROLE = Qt.UserRole + 2
GREY = QColor("#888888")


def _edit_page(editor, run_label: str, tip: str):
    page = QWidget()
    v = QVBoxLayout(page)
    v.setContentsMargins(0, 0, 0, 0)
    v.addWidget(editor)
    bar = QHBoxLayout()
    label = QLabel("")
    run_btn = QPushButton(run_label)
    run_btn.setToolTip(tip)
    revert_btn = QPushButton("Revert edit")
    bar.addWidget(label, 1)
    bar.addWidget(run_btn)
    bar.addWidget(revert_btn)
    v.addLayout(bar)
    return page, label, run_btn, revert_btn


class QuadrantsWindow(QMainWindow):
    message = Signal(str)   # lines for the main window's Messages

    def __init__(self, script: str, arch: str | None = None, args=(), timeout: float = 300.0,
                 python: str | None = None, edit_folder=None, parent=None):
        super().__init__(parent)
        self.script, self.python = str(script), python
        self.setWindowTitle(f"Quadrants program — {self.script}")
        self.resize(1400, 900)
        self.edit_folder = edit_folder or default_edit_folder(script)
        self.run_result = None       # the QuadrantsRun on screen (dumps on)
        self.edit_result = None      # the last edit_and_rerun() result
        self.ours = None
        self.jobs = Lane("quadrants-program", threads=1, parent=self)   # one program run at a time

        tb = QToolBar("Program")
        tb.setMovable(False)
        self.addToolBar(tb)
        tb.addWidget(QLabel(" Arch "))
        self.arch = QComboBox()
        self.arch.addItems(["program's choice", "cpu", "cuda"])
        if arch:
            self.arch.setCurrentText(arch)
        tb.addWidget(self.arch)
        tb.addWidget(QLabel(" Arguments "))
        self.args = QLineEdit(shlex.join(map(str, args)))
        self.args.setMinimumWidth(200)
        tb.addWidget(self.args)
        tb.addWidget(QLabel(" Timeout s "))
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 86400)
        self.timeout.setValue(timeout)
        tb.addWidget(self.timeout)
        self.run_act = tb.addAction("Run", self.run)
        self.ours_act = tb.addAction("Compare with qdexplorer.lang", self.compare_ours)
        self.ours_act.setToolTip("Run the same file with `import quadrants` meaning qdexplorer.lang; tasks side by side")

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.ElideMiddle)
        self.tabs = QTabWidget()
        self.llvm = CodeEditor("llvm", False)
        self.ptx = CodeEditor("ptx", False)
        self.before_ptx = CodeEditor("llvm", True)
        llvm_page, self.llvm_label, self.run_ll_btn, self.revert_ll_btn = _edit_page(
            self.llvm, "Run this LLVM IR", "Saves the edit, reruns the program with QD_LOAD_IR=1 and compares timings")
        ptx_page, self.ptx_label, self.run_ptx_btn, self.revert_ptx_btn = _edit_page(
            self.ptx, "Run this PTX", "Saves the edit, reruns the program with QUADRANTS_LOAD_PTX=1 (CUDA) and "
            "compares timings")
        self.passes = PassesView()
        self.compare = ComparisonPanel()
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.tabs.addTab(llvm_page, "LLVM IR")
        self.tabs.addTab(ptx_page, "PTX")
        self.tabs.addTab(self.before_ptx, "Before PTX")
        self.tabs.addTab(self.passes, "Passes")
        self.tabs.addTab(self.compare, "Comparison")
        self.tabs.addTab(self.output, "Output")
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.tree)
        split.addWidget(self.tabs)
        split.setSizes([660, 740])
        self.setCentralWidget(split)

        self.tree.currentItemChanged.connect(lambda *_: self.show_selected())
        self.run_ll_btn.clicked.connect(lambda: self.run_edit("ll"))
        self.run_ptx_btn.clicked.connect(lambda: self.run_edit("ptx"))
        self.revert_ll_btn.clicked.connect(lambda: self.revert_edit("ll"))
        self.revert_ptx_btn.clicked.connect(lambda: self.revert_edit("ptx"))
        self.jobs.busy.connect(self._busy)

    # ---- commands
    def _common(self):
        arch = self.arch.currentText()
        return dict(arch=arch if arch in ("cpu", "cuda") else None, timeout=self.timeout.value(), python=self.python)

    def _args(self):
        return shlex.split(self.args.text())

    def _submit(self, what: str, fn, *args, returned, **kwargs) -> bool:
        """One job at a time (a program run takes the machine); its failure is shown, never fatal."""
        if self.jobs.running:
            return False
        self.jobs.submit(fn, *args, returned=returned, errored=lambda e: self._failed(what, e), **kwargs)
        return True

    def run(self):
        script, args, common = self.script, self._args(), self._common()
        self.statusBar().showMessage(f"running {script}…")
        self._submit("run", run_program, script, args, returned=self._show_run, **common)

    def run_edit(self, kind: str):
        t = self.selected_task()
        if t is None or self.run_result is None:
            return
        editor = self.ptx if kind == "ptx" else self.llvm
        generated = t.text("ptx" if kind == "ptx" else "llvm")
        if not generated:
            self.log("no PTX for this task: PTX exists only on CUDA (choose arch cuda and Run)")
            return
        EditFolder(self.edit_folder, kind).write(t.stable_name, editor.toPlainText(), generated)
        script, args, common, base, folder = self.script, self._args(), self._common(), self.run_result, self.edit_folder
        self.statusBar().showMessage(f"rerunning with the edited {t.stable_name} ({kind})…")
        self._submit("edit", edit_and_rerun, script, folder, kind, args, baseline=base, returned=self._show_edit,
                     **common)

    def revert_edit(self, kind: str):
        t = self.selected_task()
        if t is not None and EditFolder(self.edit_folder, kind).revert(t.stable_name):
            self.log(f"reverted the {kind} edit of {t.stable_name}")
            self._refresh_edit_states()
            self.show_selected()

    def compare_ours(self):
        if self.run_result is None or not self.run_result.ok:
            self.log("run the program first")
            return
        script, args, base, arch = self.script, self._args(), self.run_result, self._common()["arch"] or "cpu"

        def job():
            o = run_ours(script, args, arch=arch, timeout=self.timeout.value())
            return o, compare_with_ours(base, o)
        self.statusBar().showMessage("running the program under qdexplorer.lang…")
        self._submit("ours", job, returned=lambda res: self._show_ours(*res))

    def show_saved(self, path: str):
        """A saved `qdexplorer quadrants --json` document (with its edited run and comparison, if any).
        When its dump folders are not where they were written (another machine), `dump/` and `load/`
        beside the JSON are used instead, and `edits/` there as the edit folder (as
        benchmarks/quadrants_ptx_edit.py packs them)."""
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        here = os.path.dirname(os.path.abspath(path))

        def moved(folder):
            local = os.path.join(here, "dump" if folder == doc["dump_dir"] else "load")
            return None if os.path.isdir(folder) or not os.path.isdir(local) else (folder, local)
        base = run_from_dict(doc, moved(doc["dump_dir"]))
        if os.path.isdir(os.path.join(here, "edits")):  # the edit folder travelled with the run
            self.edit_folder = os.path.join(here, "edits")
        self.script = doc["script"]
        self.args.setText(shlex.join(doc["args"]))
        self._show_run(base)
        if doc.get("edited_run"):
            edited = run_from_dict(doc["edited_run"], moved(doc["edited_run"]["dump_dir"]))
            self._show_edit({"baseline": base, "edited": edited, "load": edited.load,
                             "comparison": doc["comparison"]})
        self.setWindowTitle(f"Quadrants program — {doc['script']} (saved run: {path})")

    # ---- results
    def _failed(self, name: str, error: Exception):
        self.log(f"{name} failed: {error_text(error)}")
        self.statusBar().showMessage(f"{name} failed — see Messages")

    @Slot(bool)
    def _busy(self, busy):
        for w in (self.run_act, self.ours_act, self.run_ll_btn, self.run_ptx_btn):
            w.setEnabled(not busy)

    def _report(self, run, what):
        for line in run.stderr.splitlines():
            self.message.emit(f"[{what}] {line}")
        if not run.ok:
            self.log(f"{what}: {run.error}")

    def _show_run(self, run):
        self.run_result, self.edit_result = run, None
        self.output.setPlainText(f"$ {run.python} {run.script} {' '.join(run.args)}\n{run.stdout}\n{run.stderr}")
        self._report(run, "run")
        self.tree.clear()
        self.items = {}
        for k in run.kernels:
            ki = QTreeWidgetItem([k.name + (" [internal]" if k.internal else ""), plural(len(k.tasks), "task")])
            ki.setData(0, KERNEL_ROLE, k.name)
            ki.setToolTip(0, f"{k.file}:{k.line}" if k.file else "defined by Quadrants itself")
            self.tree.addTopLevelItem(ki)
            for t in k.tasks:
                ti = QTreeWidgetItem([t.name, t.type, str(len(t.launches_ms)), _ms(t.launches_ms), "", "",
                                      _size(t, "llvm"), _size(t, "ptx"), ""])
                ti.setData(0, TASK_ROLE, t.name)
                ti.setToolTip(0, f"stable name: {t.stable_name}")
                for c in range(2, 8):
                    ti.setTextAlignment(c, Qt.AlignRight | Qt.AlignVCenter)
                if k.internal:
                    for c in range(len(COLUMNS)):
                        ti.setForeground(c, QBrush(GREY))
                ki.addChild(ti)
                self.items[t.name] = ti
            ki.setExpanded(not k.internal)
        for c in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(c)
        self.tree.setColumnWidth(0, min(self.tree.columnWidth(0), 280))
        self._refresh_edit_states()
        first = next((t for t in run.tasks(include_internal=False)), None)
        if first is not None:
            self.tree.setCurrentItem(self.items[first.name])
        ntasks = len(run.tasks(include_internal=False))
        self.statusBar().showMessage(
            f"{run.arch or '?'}: {plural(ntasks, 'task')} in {plural(sum(not k.internal for k in run.kernels), 'kernel')}, "
            f"{run.seconds:.2f} s" + (f" — FAILED: {run.error.splitlines()[0]}" if run.error else ""))

    def _refresh_edit_states(self):
        if self.run_result is None:
            return
        states = {}
        for kind in ("ll", "ptx"):
            for task, st in edit_states(EditFolder(self.edit_folder, kind), self.run_result).items():
                states.setdefault(task, []).append(f"{kind} {st}")
        for name, it in self.items.items():
            text = ", ".join(states.get(name, []))
            it.setText(8, text)
            it.setForeground(8, QBrush(QColor("#c62828" if "stale" in text else "#2e7d32")))

    def _show_edit(self, res):
        base, edited, load = res["baseline"], res["edited"], res["load"]
        self.edit_result = res
        if edited is None:
            self._report(base, "run")
            return
        self._report(edited, "edited run")
        self.output.appendPlainText(f"\n--- edited run ({load['env']}=1) ---\n{edited.stdout}\n{edited.stderr}")
        for row in res["comparison"]:
            it = self.items.get(row["task"])
            if it is not None:
                it.setText(4, fmt_ms(row["edited_run"]["median_ms"]))
                it.setText(5, f"{row['ratio']:.3f}" if row["ratio"] is not None else "")
        self.compare.show_edit_rows(res["comparison"])
        for e in load["edits"]:
            self.log(f"{e['stable_name']}: edit {e['state']}, {'used' if e['used'] else 'NOT used'} ({e['evidence']})")
        self._refresh_edit_states()
        for c in (4, 5, 8):
            self.tree.resizeColumnToContents(c)
        t = self.selected_task()
        if t is not None:
            self._plot_launches(t)
        self.tabs.setCurrentIndex(self.tabs.indexOf(self.compare))
        used = all(e["used"] for e in load["edits"])
        self.statusBar().showMessage("edited run finished: " + ("edit used" if used else "edit NOT used — see Messages")
                                     + ("" if edited.ok else f" — FAILED: {edited.error.splitlines()[0]}"))

    def _show_ours(self, ours, rows):
        self.ours = rows
        if ours.get("error"):
            self.log(f"under qdexplorer.lang: {ours['error']}")
        for k in rows:
            self.log(f"{k['kernel']}: task lists {'match' if k['match'] else 'DIFFER'}"
                     + (f" (set aside Quadrants' bound-only {', '.join(k['set_aside'])})" if k["set_aside"] else ""))
        self.compare.show_ours_rows(rows)
        self.tabs.setCurrentIndex(self.tabs.indexOf(self.compare))
        self.statusBar().showMessage("task lists " + ("match" if all(k["match"] for k in rows) else "DIFFER"))

    # ---- selection
    def selected_task(self):
        it = self.tree.currentItem()
        name = it.data(0, TASK_ROLE) if it is not None else None
        return self.run_result.task(name) if name and self.run_result else None

    def selected_kernel(self):
        it = self.tree.currentItem()
        if it is None or self.run_result is None:
            return None
        name = it.data(0, KERNEL_ROLE) or (it.parent().data(0, KERNEL_ROLE) if it.parent() else None)
        return next((k for k in self.run_result.kernels if k.name == name), None)

    def show_selected(self):
        k = self.selected_kernel()
        if k is not None and k.name != self.passes.kernel_name:
            self.passes.set_kernel(k)
        t = self.selected_task()
        if t is None:
            return
        for kind, editor, label in (("ll", self.llvm, self.llvm_label), ("ptx", self.ptx, self.ptx_label)):
            folder = EditFolder(self.edit_folder, kind)
            edit = next((e for e in (folder.edits() if folder.folder.is_dir() else [])
                         if e.name in (t.name, t.stable_name)), None)
            generated = t.text("llvm" if kind == "ll" else "ptx")
            editor.setPlainText(edit.text if edit else generated or
                                ("(no PTX: Quadrants writes PTX only on CUDA)" if kind == "ptx" else ""))
            state = edit_states(folder, self.run_result).get(t.name) if edit else None
            label.setText(f"edit {state}: {edit.path}" if edit else "generated code" + (
                f" · {len(generated)} bytes" if generated else ""))
        self.run_ptx_btn.setEnabled(bool(t.files.get("ptx")) and not self.jobs.running)
        self._plot_launches(t)
        self.before_ptx.setPlainText(t.text("before_ptx") or "(only on CUDA)")

    def _plot_launches(self, t):
        """Every launch of the task in the generated run and, after an edit, in the edited run."""
        edited = self.edit_result["edited"].launches.get(t.name, []) if self.edit_result and \
            self.edit_result.get("edited") else []
        self.compare.plot_task(t.stable_name, t.launches_ms, edited)

    def log(self, text: str):
        self.message.emit(text)


def _ms(v) -> str:
    return fmt_ms(statistics.median(v)) if v else ""


def _size(t, kind) -> str:
    p = t.files.get(kind)
    return str(os.path.getsize(p)) if p and os.path.exists(p) else ""
