"""The main window: task tree, code views, live timing plots, and the run controls.

The window owns one `Session` (the Qt-free model); engine events arrive through the bridge
and are applied to it in the GUI thread; the views take the session and redraw from it.
"""
from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Slot
from PySide6.QtWidgets import (QComboBox, QLabel, QMainWindow, QMessageBox, QPlainTextEdit, QProgressBar,
                               QSpinBox, QSplitter, QTabWidget, QToolBar)

from ..session import Session
from .bench_actions import BenchActions
from .bridge import EngineBridge
from .code_views import CodeViews
from .task_tree import TaskTree
from .timings import TimingsPanel


class MainWindow(QMainWindow):
    def __init__(self, make_engine, project_name: str, cuda_reason: str = "", watch: list | None = None):
        super().__init__()
        self.setWindowTitle(f"qdexplorer — {project_name}")
        self.resize(1400, 900)
        self.bridge = EngineBridge(make_engine)
        self.session = Session()
        self.tree = TaskTree(self.session)
        self.views = CodeViews()
        self.plots = TimingsPanel(self.session)
        self.messages = QPlainTextEdit()
        self.messages.setReadOnly(True)
        self.messages.setMaximumBlockCount(5000)

        right = QSplitter(Qt.Vertical)
        right.addWidget(self.views)
        bottom = QTabWidget()
        bottom.addTab(self.plots, "Timings")
        bottom.addTab(self.messages, "Messages")
        right.addWidget(bottom)
        right.setSizes([560, 340])
        split = QSplitter(Qt.Horizontal)
        split.addWidget(self.tree)
        split.addWidget(right)
        split.setSizes([640, 760])
        self.setCentralWidget(split)

        tb = QToolBar("Run")
        tb.setMovable(False)
        self.addToolBar(tb)
        self.compile_act = tb.addAction("Compile", self.compile)
        self.reload_act = tb.addAction("Reload files", self.reload)
        tb.addSeparator()
        tb.addWidget(QLabel(" Backend "))
        self.backend = QComboBox()
        self.backend.addItems(["cpu", "cuda"])
        if cuda_reason:
            self.backend.model().item(1).setEnabled(False)
            self.backend.setItemData(1, f"CUDA unavailable: {cuda_reason}", Qt.ToolTipRole)
        tb.addWidget(self.backend)
        tb.addWidget(QLabel(" Workload "))
        self.workload = QComboBox()
        self.workload.setMinimumWidth(180)
        tb.addWidget(self.workload)
        tb.addWidget(QLabel(" Repeat "))
        self.repeat = QSpinBox()
        self.repeat.setRange(1, 100000)
        self.repeat.setValue(20)
        tb.addWidget(self.repeat)
        self.run_act = tb.addAction("Run", self.run)
        self.stop_act = tb.addAction("Stop", self.bridge.stop)
        self.stop_act.setEnabled(False)
        self.bench = BenchActions(self, bottom, tb)   # Bench & save, the Compare and History tabs
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.statusBar().addPermanentWidget(self.progress)

        self.tree.currentItemChanged.connect(lambda *_: self.show_selected())
        self.views.save_override.connect(self.save_override)
        self.views.revert_override.connect(self.revert_override)
        self.bridge.event.connect(self.on_event)
        self.bridge.busy.connect(self.on_busy)
        self.session.message.connect(self.log)
        self.session.task_changed.connect(self._task_changed)
        self.session.project_changed.connect(self._project_changed)
        # Saving a kernel file in any editor recompiles: only the tasks that changed miss the cache.
        self.watcher = QFileSystemWatcher(self)
        if watch:
            self.watcher.addPaths([str(p) for p in watch])
        self._debounce = QTimer(self, singleShot=True, interval=300)
        self._debounce.timeout.connect(self.reload)
        self.watcher.fileChanged.connect(self._file_changed)
        self.compile()

    @property
    def compiled(self) -> dict:
        """task -> its nvptx CompiledTask (read from the session)."""
        return {task: ct for (target, task), ct in self.session.compiled.items() if target == "nvptx"}

    # ---- commands (each runs on the engine thread)
    def compile(self):
        self.statusBar().showMessage("compiling every task…")
        self.bridge.submit(lambda eng: eng.compile(target="nvptx"), returned=self._compiled,
                           errored=lambda m: self._failed("compile", m))

    def reload(self):
        self.bridge.submit(lambda eng: eng.refresh(), errored=lambda m: self._failed("reload", m))
        self.compile()

    @Slot(str)
    def _file_changed(self, path):
        if path not in self.watcher.files():  # editors that save by rename drop the watch
            self.watcher.addPath(path)
        self.log(f"{path} changed: recompiling")
        self._debounce.start()

    def run(self):
        name = self.workload.currentText()
        workloads = None if name in ("", "all workloads") else [name]
        backend, repeat = self.backend.currentText(), self.repeat.value()

        def job(eng):
            eng.set_backend(backend)
            return eng.run(workloads, repeat=repeat)
        self.statusBar().showMessage(f"running {name or 'all workloads'} on {backend} ×{repeat}…")
        self.stop_act.setEnabled(True)
        self.bridge.submit(job, returned=self._ran, errored=lambda m: self._failed("run", m))

    @Slot(str, str)
    def save_override(self, task, text):
        ct = self.compiled.get(task)
        if ct is None:
            return
        generated = ct.generated
        self.bridge.submit(lambda eng: eng.overrides.write(task, text, generated),
                           errored=lambda m: self._failed("override", m))
        self.compile()

    @Slot(str)
    def revert_override(self, task):
        self.bridge.submit(lambda eng: eng.overrides.revert(task), errored=lambda m: self._failed("revert", m))
        self.compile()

    # ---- results
    @Slot(object)
    def on_event(self, ev):
        self.session.apply(ev)

    def _project_changed(self, ev):
        names = set(getattr(ev, "kernels", ()) or ())
        if names:
            self.session.forget_kernels_not_in(names)
            current = self.workload.currentText()
            self.workload.clear()
            self.workload.addItems(["all workloads"] + list(ev.workloads))
            if current:
                self.workload.setCurrentText(current)

    def _task_changed(self, task):
        if task == self.tree.selected_task():
            self.views.show_resources(self.session.resources.get(task))

    def _compiled(self, result):
        kts, compiled = result
        if self.tree.selected_task() is None:
            self.tree.select(next(iter(self.tree.items), ""))
        else:
            self.show_selected()
        errors = [kt.error for kt in kts if kt.error] + [ct.error for ct in compiled if ct.error]
        tiers = {}
        for ct in compiled:
            tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
        self.statusBar().showMessage(
            f"{len(compiled)} tasks compiled ({', '.join(f'{v} {k}' for k, v in sorted(tiers.items()))})"
            + (f" — {len(errors)} error(s), see Messages" if errors else ""))
        for ct in compiled:
            if ct.error:
                self.log(f"{ct.task}: {ct.error}")

    def _ran(self, results):
        self.stop_act.setEnabled(False)
        for r in results:
            line = f"{r.status.upper():8} {r.workload} ({r.kernel}, {r.backend})"
            detail = r.check_error or r.error or r.skipped
            self.log(line + (f": {detail}" if detail else ""))
        passed = sum(r.status == "passed" for r in results)
        self.statusBar().showMessage(f"run finished: {passed}/{len(results)} passed")

    def _failed(self, what, message):
        self.stop_act.setEnabled(False)
        self.log(f"{what} failed: {message}")
        self.statusBar().showMessage(f"{what} failed — see Messages")
        if what == "compile" and not self.session.kernels:
            QMessageBox.warning(self, "qdexplorer", message.splitlines()[0] if message else what)

    @Slot(bool)
    def on_busy(self, busy):
        self.progress.setVisible(busy)
        for act in (self.compile_act, self.run_act, self.reload_act):
            act.setEnabled(not busy)

    def show_selected(self):
        task = self.tree.selected_task()
        if not task:
            return
        t = self.session.task(task)
        if t is not None:
            self.views.show_task(t, self.session.compiled_task(task, "nvptx"))
            self.views.show_resources(self.session.resources.get(task))

    def log(self, text):
        self.messages.appendPlainText(text)

    def closeEvent(self, event):  # noqa: N802 - Qt's name
        self.bridge.shutdown()
        super().closeEvent(event)
