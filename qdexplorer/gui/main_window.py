"""The main window: task tree, code views, live timing plots, menus, and the run controls.

The window owns one `Session` (the Qt-free model); engine events arrive through the bridge and
are applied to it in the GUI thread; the views take the session and redraw from it. Other views
(comparisons, history, a Quadrants program) join through `add_view(title, widget)`, which puts
them in the bottom tab area and in View ▸ Panels.
"""
from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (QApplication, QLabel, QMainWindow, QMessageBox, QPlainTextEdit,
                               QProgressBar, QSplitter)

from ..events import TaskLoaded
from ..session import Session
from . import jobs
from .bench_actions import BenchActions
from .bridge import EngineBridge
from .code_views import CodeViews
from .mode_table import ModeTable
from .panel_tabs import PanelTabs
from .project_watch import ProjectWatcher
from .resource_meter import ResourceMeter
from .run_toolbar import build_run_toolbar
from .settings import Settings
from .task_tree import TaskTree
from .theme import apply_theme, current_theme
from .timings import TimingsPanel

_FILE_LINE = re.compile(r"^(?P<file>[^\n:]+\.py):(?P<line>\d+)")


def window_icon() -> QIcon:
    return QIcon(str(Path(__file__).resolve().parent.parent / "resources" / "qdexplorer.svg"))


class MainWindow(QMainWindow):
    def __init__(self, make_engine, project_name: str, cuda_reason: str = "", watch: list | None = None,
                 settings: Settings | None = None, project_path: str | None = None, engine_for=None):
        """`make_engine()` builds the engine of this project; `engine_for(path)` returns such a builder
        for another project (File ▸ Open); without it, Open is disabled."""
        super().__init__()
        self.settings = settings or Settings()
        self.engine_for = engine_for
        self.project_path = str(project_path) if project_path else None
        self.project_name = project_name
        self.setWindowIcon(window_icon())
        self.resize(1400, 900)
        self.bridge = EngineBridge(make_engine)
        self.session = Session()
        self.meter = ResourceMeter(self)
        self.tree = TaskTree(self.session, self.meter)
        self.views = CodeViews()
        self.plots = TimingsPanel(self.session)
        self.messages = QPlainTextEdit()
        self.messages.setReadOnly(True)
        self.messages.setMaximumBlockCount(5000)
        self.run_names: list[str] = []
        self._closing = False
        self._shut_down = False
        self._busy = False

        self.right = QSplitter(Qt.Vertical)
        self.right.addWidget(self.views)
        self.bottom = PanelTabs()
        self.bottom.addTab(self.plots, "Timings")
        self.bottom.addTab(self.messages, "Messages")
        self.modes = ModeTable()
        self.bottom.addTab(self.modes, "Assembly modes")
        self.right.addWidget(self.bottom)
        self.right.setSizes([540, 360])
        self.split = QSplitter(Qt.Horizontal)
        self.split.addWidget(self.tree)
        self.split.addWidget(self.right)
        self.split.setSizes([700, 700])
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 1)
        self.setCentralWidget(self.split)

        build_run_toolbar(self, cuda_reason)  # toolbar, backend, mode, workload, repeat; and the menus
        listed = self.bottom.count()  # tabs View ▸ Panels already has
        self.bench = BenchActions(self, self.bottom, self.toolbar)   # Bench & save, the Compare and History tabs (issue 8)
        for i in range(listed, self.bottom.count()):
            self.panels_menu.addAction(self.bottom.tabText(i), lambda i=i: self.bottom.setCurrentIndex(i))
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.run_status = QLabel("")
        self.run_status.setMinimumWidth(60)  # a long progress line is clipped, never widens the window
        self.statusBar().addPermanentWidget(self.run_status)
        self.statusBar().addPermanentWidget(self.progress)

        self.tree.currentItemChanged.connect(lambda *_: self.show_selected())
        self.views.save_override.connect(self.save_override)
        self.views.revert_override.connect(self.revert_override)
        self.views.save_ll_override.connect(self.save_ll_override)
        self.mode.currentTextChanged.connect(self.set_mode)
        self.views.want_optimised.connect(self._want_optimised)
        self.views.want_sass.connect(self._want_sass)
        self.backend.currentTextChanged.connect(self._backend_changed)
        self.bridge.event.connect(self.on_event)
        self.bridge.busy.connect(self.on_busy)
        self._connect_session(self.session)
        self.meter.measured.connect(self._task_changed)
        # Saving a kernel file in any editor recompiles; a new file in the folder is noticed too.
        self.files = ProjectWatcher(self)
        self.files.watch(watch or [])
        self.files.changed.connect(self.log)
        self.files.reload_wanted.connect(self.reload)
        self._restore_settings()
        self._set_title()
        self.bridge.submit(lambda eng: eng.mode, returned=self._show_mode)
        self.compile()

    # ---- places for other views
    def add_view(self, title: str, widget, where: str = "bottom"):
        """Adds a panel (issue 8's comparisons, issue 13's program view...) and a View ▸ Panels entry."""
        tabs = self.bottom if where == "bottom" else self.views
        index = tabs.addTab(widget, title)
        act = self.panels_menu.addAction(title, lambda: (tabs.setCurrentWidget(widget), widget.setFocus()))
        return index, act

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
        """Re-read the project's files, then compile; a file that fails marks only its own kernels."""
        self.statusBar().showMessage("reloading the project…")

        def job(eng):
            eng.refresh()
            return eng.compile(target="nvptx")
        self.bridge.submit(job, returned=self._reloaded, errored=self._reload_failed)

    def run(self):
        name = self.workload.currentText()
        workloads = None if name in ("", "all workloads") else [name]
        backend, repeat = self.backend.currentText(), self.repeat.value()
        self.run_names = workloads or [self.workload.itemText(i) for i in range(1, self.workload.count())]

        def job(eng):
            eng.set_backend(backend)
            return eng.run(workloads, repeat=repeat)
        self.statusBar().showMessage(f"running {name or 'all workloads'} on {backend} ×{repeat}…")
        self.stop_act.setEnabled(True)
        self.bridge.submit(job, returned=self._ran, errored=lambda m: self._failed("run", m))

    @Slot(str)
    def set_mode(self, mode):
        self.bridge.submit(lambda eng: eng.set_mode(mode), errored=lambda m: self._failed("mode", m))
        self.compile()

    def _show_mode(self, mode):
        """The project's mode (qdexplorer.toml) as the combo's choice, without recompiling."""
        self.mode.blockSignals(True)
        self.mode.setCurrentText(mode)
        self.mode.blockSignals(False)

    def stop(self):
        self.bridge.stop()
        self.statusBar().showMessage("stopping after the launch in flight…")

    @Slot(str, str)
    def save_override(self, task, text):
        ct = self.compiled.get(task)
        if ct is None:
            return
        generated = ct.produced["ptx"].data if "ptx" in ct.produced else ct.generated  # culink: not the cubin
        self.bridge.submit(lambda eng: eng.overrides.write(task, text, generated),
                           returned=lambda path: self.log(f"{task}: override saved to {path}"),
                           errored=lambda m: self._failed("override", m))
        self.compile()

    @Slot(str, str)
    def save_ll_override(self, task, text):
        ct = self.compiled.get(task)
        if ct is None or "ll" not in ct.produced:
            return
        generated = ct.produced["ll"].data
        self.bridge.submit(lambda eng: eng.overrides.write(task, text, generated, kind="ll", target="nvptx"),
                           errored=lambda m: self._failed("override", m))
        self.compile()

    @Slot(str)
    def revert_override(self, task):
        self.bridge.submit(lambda eng: eng.overrides.revert(task), errored=lambda m: self._failed("revert", m))
        self.compile()

    def save_ptx(self):
        """Ctrl+S: the PTX tab's Save & use, from anywhere in the window."""
        self.views.setCurrentWidget(self.views.ptx_panel)
        self.views.ptx_panel.save()

    def find(self):
        w = self.views.currentWidget()
        pane = {self.views.source_pane: self.views.source_pane, self.views.ptx_panel: self.views.ptx_panel.pane,
                self.views.sass_pane: self.views.sass_pane}.get(w)
        if w is self.views.ir_split:
            pane = self.views.llvm_pane
        if pane is not None:
            pane.find_bar.open_bar()

    def _want_optimised(self, task):
        self.bridge.submit(lambda eng: jobs.optimised_ll(eng, task),
                           returned=lambda text: self.views.show_optimised(task, text),
                           errored=lambda m: self.views.show_optimised(task, f"; failed: {m}"))

    def _want_sass(self, task):
        self.bridge.submit(lambda eng: jobs.sass(eng, task), returned=lambda text: self.views.show_sass(task, text),
                           errored=lambda m: self.views.show_sass(task, f"// failed: {m}"))

    # ---- projects
    def open_project(self, path: str) -> bool:
        """Switch to the project at `path` (a folder or a kernel file); a bad one is reported, not fatal."""
        if self.engine_for is None:
            return False
        if not self._confirm_discard_drafts():
            return False
        try:
            make_engine, project = self.engine_for(path)
        except Exception as e:  # noqa: BLE001 - a project the user picked: say why, keep the current one
            self._show_project_error(path, str(e))
            return False
        self.bridge.shutdown()
        self.bridge = EngineBridge(make_engine)
        self.bridge.event.connect(self.on_event)
        self.bridge.busy.connect(self.on_busy)
        self.bridge.busy.connect(lambda busy: self.bench.bench_act.setEnabled(not busy))
        self.session = Session()
        self._rewire_session()
        self.project_path, self.project_name = str(Path(path).resolve()), project.name
        self.settings.add_recent(self.project_path)
        self.update_recent_menu()
        self.files.watch(project.files)
        self.tree.set_file_errors({})
        self._set_title()
        self.log(f"opened {self.project_path}")
        self.bridge.submit(lambda eng: eng.mode, returned=self._show_mode)
        self.compile()
        return True

    def _rewire_session(self):
        """Views take the new session (the old one goes with its project)."""
        s = self.session
        self.tree.set_session(s)
        self.tree.rebuild()
        self.plots.set_session(s)
        self._connect_session(s)
        s.project_changed.connect(self.bench._project_changed)
        self.plots.clear()

    def _connect_session(self, s):
        """The window's own subscriptions to a session (its views subscribe themselves)."""
        s.message.connect(self.log)
        s.task_changed.connect(self._task_changed)
        s.project_changed.connect(self._project_changed)
        s.run_started.connect(self._run_progress)
        s.launches_added.connect(self._run_progress)
        s.run_finished.connect(self._run_progress)

    def _show_project_error(self, path, message):
        self.log(f"cannot open {path}: {message}")
        self.statusBar().showMessage(f"cannot open {Path(path).name}: {message.splitlines()[0]}")
        QMessageBox.warning(self, "qdexplorer — cannot open project", message)

    # ---- results
    @Slot(object)
    def on_event(self, ev):
        self.session.apply(ev)
        if isinstance(ev, TaskLoaded) and ev.error:  # the driver's JIT log, put on the lines it names
            self.views.ptx_panel.show_driver_log(ev.task, ev.error)

    def _project_changed(self, ev):
        names = set(getattr(ev, "kernels", ()) or ())
        if names:
            self.session.forget_kernels_not_in(names)
            current = self.workload.currentText() or self.settings.get("run/workload", "", str)
            self.workload.blockSignals(True)
            self.workload.clear()
            self.workload.addItems(["all workloads"] + list(ev.workloads))
            if current and self.workload.findText(current) >= 0:
                self.workload.setCurrentText(current)
            self.workload.blockSignals(False)
            self.files.add(getattr(ev, "files", ()) or ())

    def _task_changed(self, task):
        if task == self.tree.selected_task():
            self.views.show_resources(self.session.resources.get(task) or self.meter.results.get(task))
        ct = self.session.compiled_task(task, "nvptx")
        if ct is not None and ct.ok and ct.ptx:
            self.meter.measure(task, ct.ptx, ct.spec, ct.arch)

    def _compiled(self, result):
        kts, compiled = result
        if self.tree.selected_task() is None:
            self.tree.select(next(iter(self.tree.items), ""))
        else:
            self.show_selected()
        kernel_errors = [kt for kt in kts if kt.error]
        errors = len(kernel_errors) + sum(1 for ct in compiled if ct.error)
        tiers = {}
        for ct in compiled:
            tiers[ct.tier] = tiers.get(ct.tier, 0) + 1
        broken = self.tree.file_errors
        msg = f"{len(compiled)} tasks compiled ({', '.join(f'{v} {k}' for k, v in sorted(tiers.items()))})"
        if broken:
            f, m = next(iter(broken.items()))
            msg = f"{Path(f).name} does not load ({m.split(': ', 1)[-1]}); its kernels are marked, " + msg
        if errors:
            msg += f" — {errors} error(s): " + (kernel_errors[0].error.splitlines()[0] if kernel_errors else
                                                 "see Messages")
        self.statusBar().showMessage(msg)
        for ct in compiled:
            if ct.error:
                self.log(f"{ct.task}: {ct.error}")

    def _reloaded(self, result):
        self.tree.set_file_errors({})
        self._compiled(result)

    def _reload_failed(self, message):
        m = _FILE_LINE.match(message)
        self.log(f"reload failed: {message}")
        if m:
            path = str(Path(m["file"]).resolve())
            self.tree.set_file_errors({path: message})
            self.statusBar().showMessage(f"{Path(path).name}:{m['line']}: {message.split(': ', 1)[-1]} — "
                                         f"kernels of {Path(path).name} marked as errors; the others keep their "
                                         "last good version")
        else:
            self.statusBar().showMessage(f"reload failed: {message.splitlines()[0]}")

    def _ran(self, results):
        self.stop_act.setEnabled(False)
        for r in results:
            line = f"{r.status.upper():8} {r.workload} ({r.kernel}, {r.backend})"
            detail = r.check_error or r.error or r.skipped
            self.log(line + (f": {detail}" if detail else ""))
        passed = sum(r.status == "passed" for r in results)
        stopped = any(getattr(r, "stopped", False) for r in results) or len(results) < len(self.run_names)
        self.statusBar().showMessage(f"run {'stopped' if stopped else 'finished'}: {passed}/{len(results)} passed")
        if self.backend.currentText() != "cuda" and any(ct.override for ct in self.compiled.values()):
            self.log("note: PTX overrides take effect on CUDA only; the CPU backend ran host code from the source")

    def _run_progress(self, rec, *_):
        n = max(1, len(rec.tasks))
        done = rec.launches
        total = n * rec.repeat
        wl = (f"workload {self.run_names.index(rec.workload) + 1}/{len(self.run_names)} "
              if rec.workload in self.run_names and len(self.run_names) > 1 else "")
        task_i = min(n, done % n + 1) if done < total else n
        launch_i = min(rec.repeat, done // n + (1 if done < total else 0))
        self.run_status.setText(f"{wl}{rec.workload}: task {task_i}/{n}, launch {launch_i}/{rec.repeat}"
                                + ("" if rec.status == "running" else f" ({rec.status})"))
        self.progress.setRange(0, total)
        self.progress.setValue(min(done, total))
        self.progress.setVisible(rec.status == "running")

    def _failed(self, what, message):
        self.stop_act.setEnabled(False)
        self.log(f"{what} failed: {message}")
        self.statusBar().showMessage(f"{what} failed: {message.splitlines()[0] if message else ''}")

    def bridge_busy(self) -> bool:
        return self._busy

    @Slot(bool)
    def on_busy(self, busy):
        self._busy = busy
        if busy and self.progress.maximum() == 0:
            self.progress.setVisible(True)
        elif not busy:
            self.progress.setVisible(False)
            self.progress.setRange(0, 0)
        for act in (self.compile_act, self.run_act, self.reload_act):
            act.setEnabled(not busy)

    def _backend_changed(self, backend):
        self.tree.set_backend(backend)
        self.views.ptx_panel.set_backend(backend)

    def show_selected(self):
        task = self.tree.selected_task()
        kernel = self.tree.selected_kernel()
        self.plots.select(task, kernel)
        if not task:
            entry = self.session.kernels.get(kernel) if kernel else None
            if entry is None:
                return
            error = entry.error or self.tree._kernel_file_error(entry)
            if error or not entry.tasks:
                self.views.show_kernel_error(kernel, error or "no tasks")
                return
            task = entry.tasks[0].name
        t = self.session.task(task)
        if t is not None:
            self.views.show_task(t, self.session.compiled_task(task, "nvptx"))
            self.views.show_resources(self.session.resources.get(task) or self.meter.results.get(task))

    def log(self, text):
        self.messages.appendPlainText(text)

    def open_quadrants_program(self, path: str | None = None, arch: str | None = None):
        """A real Quadrants program in a window of its own (gui/quadrants_view.py); its messages land here."""
        from PySide6.QtWidgets import QFileDialog
        from .quadrants_view import QuadrantsWindow
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Open Quadrants program", "",
                                                  "Python programs (*.py);;Saved runs (qdexplorer quadrants --json) (*.json)")
            if not path:
                return None
        win = QuadrantsWindow(path, arch=arch or self.backend.currentText())
        win.message.connect(self.log)
        self.quadrants_windows = [w for w in getattr(self, "quadrants_windows", []) if w.isVisible()] + [win]
        win.show()
        win.show_saved(path) if path.endswith(".json") else win.run()
        return win

    # ---- settings
    def _restore_settings(self):
        s = self.settings
        s.restore_geometry("main", self)
        s.restore_state("main", self)
        for key, sp in (("split", self.split), ("right", self.right), ("timings", self.plots)):
            s.restore_state(key, sp)
        self.repeat.setValue(s.get("run/repeat", self.repeat.value(), int))
        backend = s.get("run/backend", "", str)
        if backend and self.backend.model().item(self.backend.findText(backend)).isEnabled():
            self.backend.setCurrentText(backend)
        lp = self.plots.launches
        lp.scope.setCurrentText(s.get("plots/scope", lp.scope.currentText(), str))
        lp.log_scale.setChecked(s.get("plots/log", False, bool))
        self.dark_act.setChecked(current_theme() == "dark")

    def save_settings(self):
        s = self.settings
        s.save_geometry("main", self)
        s.save_state("main", self)
        for key, sp in (("split", self.split), ("right", self.right), ("timings", self.plots)):
            s.save_state(key, sp)
        s.set("run/repeat", self.repeat.value())
        s.set("run/workload", self.workload.currentText())
        s.set("run/backend", self.backend.currentText())
        s.set("plots/scope", self.plots.launches.scope.currentText())
        s.set("plots/log", self.plots.launches.log_scale.isChecked())
        s.theme = current_theme()
        if self.project_path:
            s.last_project = self.project_path
        s.sync()

    def set_dark(self, on: bool):
        apply_theme("dark" if on else "light", self)
        self.tree.rebuild()

    def _set_title(self):
        self.setWindowTitle(f"qdexplorer — {self.project_name}" + (f"  ({self.project_path})" if self.project_path else ""))

    def update_recent_menu(self):
        self.recent_menu.clear()
        for p in self.settings.recent():
            self.recent_menu.addAction(p, lambda p=p: self.open_project(p))
        self.recent_menu.setEnabled(bool(self.settings.recent()) and self.engine_for is not None)
        if self.settings.recent():
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear list", lambda: (self.settings.clear_recent(), self.update_recent_menu()))

    # ---- closing
    def _confirm_discard_drafts(self) -> bool:
        drafts = self.views.ptx_panel.dirty_tasks()
        return not drafts or self.views.ptx_panel.confirm_discard(drafts)

    def closeEvent(self, event):  # noqa: N802 - Qt's name
        """Never raises: PySide aborts the process on an exception escaping a virtual override."""
        try:
            self._close(event)
        except Exception:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            event.accept()

    def _close(self, event):
        if self._shut_down:
            event.accept()
            return
        if not self._closing and not self._confirm_discard_drafts():
            event.ignore()
            return
        self._closing = self._shut_down = True
        self.save_settings()
        self.hide()
        QApplication.processEvents()
        self.meter.shutdown()
        self.views.ptx_panel.shutdown()
        self.bridge.shutdown()
        super().closeEvent(event)
