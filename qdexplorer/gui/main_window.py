"""The main window: task tree, code views, live timing plots, and the run controls."""
from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Slot
from PySide6.QtWidgets import (QComboBox, QLabel, QMainWindow, QMessageBox, QPlainTextEdit, QProgressBar,
                               QSpinBox, QSplitter, QTabWidget, QToolBar)

from ..events import CompileEvent, FaultEvent, LaunchEvent, LoadEvent
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
        self.kernel_tasks = []
        self.compiled = {}
        self.resources = {}  # task -> registers, shared, occupancy... from the last CUDA load
        self.tree = TaskTree()
        self.views = CodeViews()
        self.plots = TimingsPanel()
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
        tb.addAction("Clear plots", self.plots.clear)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.statusBar().addPermanentWidget(self.progress)

        self.tree.currentItemChanged.connect(lambda *_: self.show_selected())
        self.views.save_override.connect(self.save_override)
        self.views.revert_override.connect(self.revert_override)
        self.bridge.event.connect(self.on_event)
        self.bridge.done.connect(self.on_done)
        self.bridge.failed.connect(self.on_failed)
        self.bridge.busy.connect(self.on_busy)
        # Saving a kernel file in any editor recompiles: only the tasks that changed miss the cache.
        self.watcher = QFileSystemWatcher(self)
        if watch:
            self.watcher.addPaths([str(p) for p in watch])
        self._debounce = QTimer(self, singleShot=True, interval=300)
        self._debounce.timeout.connect(self.reload)
        self.watcher.fileChanged.connect(self._file_changed)
        self.compile()

    # ---- commands (each runs on the engine thread)
    def compile(self):
        self.plots.reset_tiers()
        self.statusBar().showMessage("compiling every task…")
        self.bridge.submit("compile", lambda eng: (eng.compile(target="nvptx"), sorted(eng.project.workloads)))

    def reload(self):
        self.bridge.submit("reload", lambda eng: eng.refresh())
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
            if eng.backend != backend:
                eng.close()
                eng.backend = backend
            return eng.run(workloads, repeat=repeat)
        self.plots.reset_tiers()
        self.statusBar().showMessage(f"running {name or 'all workloads'} on {backend} ×{repeat}…")
        self.bridge.submit("run", job)

    @Slot(str, str)
    def save_override(self, task, text):
        ct = self.compiled.get(task)
        if ct is None:
            return
        self.bridge.submit("override", lambda eng: eng.overrides.write(task, text, ct.generated))
        self.compile()

    @Slot(str)
    def revert_override(self, task):
        self.bridge.submit("revert", lambda eng: eng.overrides.revert(task))
        self.compile()

    # ---- results
    @Slot(object)
    def on_event(self, ev):
        if isinstance(ev, CompileEvent):
            self.tree.on_compile(ev)
            self.plots.add_compile(ev)
        elif isinstance(ev, LaunchEvent):
            self.tree.on_launch(ev)
            self.plots.add_launch(ev)
        elif isinstance(ev, LoadEvent):
            if ev.error:
                self.log(f"load failed: {ev.task}: {ev.error}")
            elif ev.resources:
                self.resources[ev.task] = ev.resources
                if ev.task == self.tree.selected_task():
                    self.views.show_resources(ev.resources)
        elif isinstance(ev, FaultEvent):
            self.log(f"FAULT in {ev.task} ({ev.backend}): {ev.message}")

    @Slot(str, object)
    def on_done(self, name, result):
        if name == "compile":
            (kts, compiled), workloads = result
            self.kernel_tasks = kts
            self.compiled = {ct.task: ct for ct in compiled}
            selected = self.tree.selected_task()
            self.tree.set_kernels(kts)
            for kt in self.tree.items.values():
                task = kt.data(0, Qt.UserRole + 1)
                ct = self.compiled.get(task)
                if ct is not None:
                    self.tree.on_compile(_as_event(ct))
            current = self.workload.currentText()
            self.workload.clear()
            self.workload.addItems(["all workloads"] + workloads)
            if current:
                self.workload.setCurrentText(current)
            self.tree.select(selected or next(iter(self.tree.items), ""))
            errors = [kt for kt in kts if kt.error] + [ct for ct in compiled if ct.error]
            tiers = {}
            for ct in compiled:
                tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
            self.statusBar().showMessage(
                f"{len(compiled)} tasks compiled ({', '.join(f'{v} {k}' for k, v in sorted(tiers.items()))})"
                + (f" — {len(errors)} error(s), see Messages" if errors else ""))
            for e in errors:
                self.log(getattr(e, "error", ""))
        elif name == "run":
            for r in result:
                line = f"{r.status.upper():8} {r.workload} ({r.kernel}, {r.backend})"
                detail = r.check_error or r.error or r.skipped
                self.log(line + (f": {detail}" if detail else ""))
            passed = sum(r.status == "passed" for r in result)
            self.statusBar().showMessage(f"run finished: {passed}/{len(result)} passed")

    @Slot(str, str)
    def on_failed(self, name, message):
        self.log(f"{name} failed: {message}")
        self.statusBar().showMessage(f"{name} failed — see Messages")
        if name == "compile" and not self.kernel_tasks:
            QMessageBox.warning(self, "qdexplorer", message.splitlines()[0] if message else name)

    @Slot(bool)
    def on_busy(self, busy):
        self.progress.setVisible(busy)
        for act in (self.compile_act, self.run_act, self.reload_act):
            act.setEnabled(not busy)

    def show_selected(self):
        task = self.tree.selected_task()
        if not task:
            return
        t = next((t for kt in self.kernel_tasks for t in kt.tasks if t.name == task), None)
        if t is not None:
            self.views.show_task(t, self.compiled.get(task))
            self.views.show_resources(self.resources.get(task))

    def log(self, text):
        self.messages.appendPlainText(text)

    def closeEvent(self, event):  # noqa: N802 - Qt's name
        self.bridge.shutdown()
        super().closeEvent(event)


def _as_event(ct) -> CompileEvent:
    return CompileEvent(ct.task, ct.kernel, ct.target, ct.tier, ct.key[:16], dict(ct.seconds), len(ct.output),
                        ct.override, ct.error)
