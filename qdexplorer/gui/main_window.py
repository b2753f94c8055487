"""The main window: task tree, code views, live timing plots, menus, and the run controls.

The engine lives on its own thread (gui/bridge.py): opening a project, compiling, running and
every question about a task's code are jobs there, and the engine's events come back to the GUI
thread, where they are applied to the window's Session, a mirror of the engine's own. The views
take that session and redraw from it; each newly opened project gets a fresh session. The bench
commands (Bench & save, the Compare and History tabs) are gui/timing/bench_actions.py; the toolbar and
menus are gui/run_toolbar.py and gui/menus.py. The window is composed: each helper builds its
widgets and actions and hands them back for the window to lay out, and reaches the window only
through the narrow `WindowServices` (gui/services.py) it is given, whose members are the window's
parts, not calls back into it; engines come from an `EngineFactory` that the Cluster setting gives a
placement. Its commands are parts it owns (gui/parts.py: the status line and what it counts, the
Messages pane, the pages; gui/run_control.py: Run, Stop and the toolbar's choices; gui/code_edits.py:
overrides and counters; gui/project_opener.py: the open project, trust, drafts, fallback and the
recent list), and the views follow the session's selection themselves, so what is here is layout,
wiring and the frame's own state: title, splitter sizes and settings."""
from __future__ import annotations

import re
import traceback
from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QSplitter, QTabWidget

from ..events import CompileFinished, TaskLoaded
from ..project.loader import Project
from ..project.trust import TrustStore
from ..session import Selection, Session
from .timing.bench_actions import BenchActions
from .code.pane_source import WindowPaneSource
from .code.panes import PaneArea
from .bridge import EngineBridge
from .cluster_panel import ClusterControl
from .code_edits import CodeEdits
from .code.code_views import CodeViews
from .engine_factory import EngineFactory, EngineFor
from .timing.mode_table import ModeTable
from .panel_tabs import PanelTabs
from .plumbing.project_watch import ProjectWatcher
from .project_opener import ProjectOpener
from .quadrants_window.quadrants_view import QuadrantsWindow
from .menus import MenuParts, WindowCommands, build_menus
from .parts import Activity, Messages, Pages
from .resource_meter import ResourceMeter
from .run_control import RunControl
from .run_toolbar import RunToolbar
from .services import WindowServices
from .settings import Settings
from .timing.sweep_view import SweepView
from .task_tree import TaskTree
from .theme import apply_theme, current_theme
from .timing.timings import TimingsPanel
from .plumbing.workers import error_text
from ..wording import plural

_FILE_LINE = re.compile(r"^(?P<file>[^\n:]+\.py):(?P<line>\d+)")
TREE_MAX_SHARE = 0.42   # of the window's width, at most, for the tree: the code panes need the rest
FIRST_TREE_SHARE = 0.36  # at the first open: longer names elide in the middle (the tooltip has them in full)
SOURCE_SHARE = 0.55      # of the code panes for the source at the first open: Python lines run longer than PTX's


def window_icon() -> QIcon:
    return QIcon(str(Path(__file__).resolve().parent.parent / "resources" / "qdexplorer.svg"))


class TreeSplit(QSplitter):
    """The tree beside the code. The tree does not stretch with the window (at 1920 px a tree sized to
    its columns at 1400 px was half empty); in a narrower window it gives back what exceeds
    TREE_MAX_SHARE (else the code panes lost all the width) and takes it again when the window grows."""

    def __init__(self):
        super().__init__(Qt.Horizontal)
        self.wanted = 0   # the tree's width from the first open or a drag; 0: take the restored or initial one
        self.splitterMoved.connect(lambda *_: self.want_tree(self.sizes()[0]))

    def want_tree(self, width: int):
        self.wanted = width

    def resizeEvent(self, event):  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        sizes = self.sizes()
        total = sum(sizes)
        if len(sizes) < 2 or total <= 0:
            return
        if self.wanted <= 0:
            self.wanted = sizes[0]
        tree = min(self.wanted, int(TREE_MAX_SHARE * total))
        if tree != sizes[0]:
            self.blockSignals(True)   # not a drag: splitterMoved would take this width as the one wanted
            self.setSizes([tree, total - tree])
            self.blockSignals(False)


class MainWindow(QMainWindow):
    def __init__(self, engine_for: EngineFor, project: str | Path, cuda_reason: str = "",
                 settings: Settings | None = None, fallback: str | Path | None = None,
                 trust: TrustStore | None = None):
        """`engine_for(path)` returns the function that builds the engine of the project at `path`
        (called on the engine thread: building it imports the project). The window opens `project`;
        if that fails and `fallback` is given (the bundled demo, when the last project could not be
        reopened), it opens that instead and says why."""
        super().__init__()
        self.settings = settings or Settings()
        self.engines = EngineFactory(engine_for)   # the Cluster setting adds where engines run
        self.trust = trust or TrustStore()
        self.setWindowIcon(window_icon())
        self.resize(1400, 900)
        self.bridge = EngineBridge(self)
        session = Session()   # the open project's, kept by the project part (`projects`) from here on
        self.meter = ResourceMeter(self.bridge, session, self)
        self.tree = TaskTree(session)
        self.views = CodeViews(session)
        self.plots = TimingsPanel(session)
        self.messages = Messages()
        self._closing = False
        self._shut_down = False

        self.right = QSplitter(Qt.Vertical)
        self.right.addWidget(self.views)
        self.bottom = PanelTabs()
        # full-width pages: the kernels (tree and code) and, from bench_actions, Compare and History,
        # whose charts and tables need the window's width, not a corner of it
        self.pages = QTabWidget()
        self.pages.setDocumentMode(True)
        self.layout_parts = Pages(self.pages, self.bottom)   # what View ▸ Panels lists, in this order
        self.layout_parts.add_panel(self.plots, "Timings")
        self.layout_parts.add_panel(self.messages, "Messages")
        self.modes = ModeTable()
        self.layout_parts.add_panel(self.modes, "Assembly modes")
        self.right.addWidget(self.bottom)
        self.right.setSizes([540, 360])
        self.split = TreeSplit()
        self.split.addWidget(self.tree)
        self.split.addWidget(self.right)
        self.split.setSizes([700, 700])
        self.split.setStretchFactor(0, 0)   # see TreeSplit
        self.split.setStretchFactor(1, 1)
        self.layout_parts.add_page(self.split, "Kernels", listed=False)
        self.setCentralWidget(self.pages)

        self.toolbar = RunToolbar(cuda_reason)   # Compile, Reload, Run, Stop and where and how Run launches
        self.addToolBar(self.toolbar)
        self.backend, self.mode = self.toolbar.backend, self.toolbar.mode
        self.workload, self.repeat = self.toolbar.workload, self.toolbar.repeat
        # the window's parts, one idea each: the status line and what it counts, Run/Stop, the code views'
        # commands, the open project; the window lays out what they build and wires them to its views
        self.activity = Activity(self.statusBar(), self)
        self.progress, self.run_status = self.activity.progress, self.activity.label
        self.runs = RunControl(self.bridge, self.toolbar, self.activity, self.messages,
                               lambda: any(ct.override for ct in self.compiled.values()), self)
        self.edits = CodeEdits(self.bridge, self.views, self.compile, self.messages.log, self.runs.failed, self)
        self.projects = ProjectOpener(self, self.bridge, self.engines, self.trust, self.settings, self.views.ptx_panel,
                                      self.opened, self.messages, self.activity, session, Path(project).name)
        self.services = WindowServices(self.bridge, self.settings, self.activity, self.messages, self.runs,
                                       self.projects, self.layout_parts)
        self.bench = BenchActions(self.services, self)   # Bench & save, the Compare and History pages
        self.layout_parts.add_page(self.bench.compare, "Compare")
        self.layout_parts.add_page(self.bench.hist, "History")
        self.pane_source = WindowPaneSource(self.services)
        self.panes = PaneArea(self.pane_source)   # any code, side by side or as a diff; saved with the project
        self.panes.message.connect(self.messages.log)
        self.layout_parts.add_page(self.panes, "Panes")
        self.pane_source.serve(self.views)   # the Kernels page's optimised IR and SASS come from the same source
        # beside Run and Stop, never in the toolbar's overflow
        self.toolbar.insertAction(self.toolbar.settings_at, self.bench.bench_act)
        self.toolbar.insertWidget(self.toolbar.settings_at, self.bench.run_name)
        # Cluster and Device selectors, the status bar's "runs on" (issue 19)
        self.cluster = ClusterControl(self.services, self.engines, self)
        self.toolbar.addSeparator()
        for w in self.cluster.toolbar_widgets:
            self.toolbar.addWidget(w)
        self.statusBar().addPermanentWidget(self.cluster.where)
        self.sweep = SweepView(self.services)   # the Sweep tab: variants timed on N devices, as a heat map
        self.layout_parts.add_panel(self.sweep, "Sweep")
        self.statusBar().addPermanentWidget(self.run_status)
        self.statusBar().addPermanentWidget(self.progress)
        self.actions = build_menus(
            self.menuBar(), self.services,
            MenuParts(self.toolbar, self.views, self.plots, self.tree, self.panes, self.edits, self.bench),
            WindowCommands(self.compile, self.reload, self.close, self.set_dark, self.open_quadrants_program))

        self.views.save_override.connect(self.edits.save_override)
        self.views.revert_override.connect(self.edits.revert_override)
        self.views.save_ll_override.connect(self.edits.save_ll_override)
        self.mode.currentTextChanged.connect(self.set_mode)
        self.views.counters.profile_requested.connect(self.edits.profile)
        self.views.compare_generated.connect(self.bench.compare_generated)
        self.backend.currentTextChanged.connect(self._backend_changed)
        self.bridge.event.connect(self.on_event)
        self.bridge.busy.connect(self.runs.busy)
        self.bridge.lane.warned.connect(self.messages.log)
        self.bridge.lane.unhandled.connect(lambda e: self.messages.log(f"error: {error_text(e)}"))
        self.meter.failed.connect(lambda task, e: self.messages.log(f"{task}: no resource figures: {error_text(e)}"))
        self._connect_session(session)
        # Saving a kernel file in any editor recompiles; a new file in the folder is noticed too.
        self.files = ProjectWatcher(self)
        self.files.changed.connect(self.messages.log)
        self.files.reload_wanted.connect(self.reload)
        self._restore_settings()
        self._set_title()
        self.projects.update_recent_menu()
        self.projects.open(str(project), ask=False, fallback=fallback)

    @property
    def session(self) -> Session:
        """The open project's session (a fresh one each time a project opens), kept by `projects`."""
        return self.projects.session

    @property
    def project_path(self) -> str | None:
        return self.projects.path

    @property
    def compiled(self) -> dict:
        """task -> its nvptx CompiledTask (read from the session)."""
        return {task: ct for (target, task), ct in self.session.compiled.items() if target == "nvptx"}

    # ---- commands (each runs on the engine thread)
    def compile(self):
        self.activity.status("compiling every task…")
        self.bridge.submit(lambda eng: eng.compile(target="nvptx"), returned=lambda _: self._compiled(),
                           errored=lambda e: self.runs.failed("compile", e))

    def reload(self):
        """Re-read the project's files, then compile; a file that fails marks only its own kernels."""
        self.activity.status("reloading the project…")

        def job(eng):
            broken = dict(eng.refresh().broken)
            eng.compile(target="nvptx")
            return broken
        self.bridge.submit(job, returned=self._reloaded, errored=self._reload_failed)

    @Slot(str)
    def set_mode(self, mode):
        self.bridge.submit(lambda eng: eng.set_mode(mode), errored=lambda e: self.runs.failed("mode", e))
        self.compile()

    def _show_mode(self, mode):
        """The project's mode (qdexplorer.toml) as the combo's choice, without recompiling."""
        self.mode.blockSignals(True)
        self.mode.setCurrentText(mode)
        self.mode.blockSignals(False)

    # ---- projects
    def opened(self, project: Project, note: str = ""):
        """The engine of `project` stands: the views take a fresh session, then it announces itself."""
        s = self.projects.take(project)
        self.tree.set_session(s)
        self.views.set_session(s)
        self.plots.set_session(s)
        self.meter.set_session(s)
        self.bench.set_session(s)
        self._connect_session(s)
        self.plots.clear()
        self.activity.note("")
        self.panes.open_project(self.project_path)   # the one left keeps its layout; this one's comes back
        self.settings.add_recent(self.project_path)
        self.projects.update_recent_menu()
        self.files.watch(project.files)
        self._set_title()
        self.messages.log(f"opened {self.project_path}")
        self.tree.set_file_errors(project.broken)
        for f, m in project.broken.items():
            self.messages.log(f"{Path(f).name} does not load, its kernels are left out until it does: {m}")
        self.bridge.submit(lambda eng: (eng.announce(), eng.mode)[1], returned=self._show_mode)
        self.compile()
        if note:
            self.activity.status(note.splitlines()[0])

    def _connect_session(self, s):
        """The window's own subscriptions to a session (its views subscribe themselves)."""
        s.message.connect(self.messages.log)
        s.selected.connect(self._selected)
        s.project_changed.connect(self._project_changed)
        s.run_started.connect(self.activity.show_progress)
        s.launches_added.connect(self.activity.show_progress)
        s.run_finished.connect(self.activity.show_progress)
        s.run_finished.connect(self.runs.finished)

    # ---- results
    @Slot(object)
    def on_event(self, ev):
        self.session.apply(ev)
        if isinstance(ev, TaskLoaded) and ev.error:  # the driver's JIT log, put on the lines it names
            self.views.ptx_panel.show_driver_log(ev.task, ev.error)

    def _project_changed(self, ev):
        names = set(getattr(ev, "kernels", ()) or ())
        if names:
            current = self.workload.currentText() or self.settings.get("run/workload", "", str)
            self.workload.blockSignals(True)
            self.workload.clear()
            self.workload.addItems(["all workloads"] + list(ev.workloads))
            if current and self.workload.findText(current) >= 0:
                self.workload.setCurrentText(current)
            self.workload.blockSignals(False)
            # the widest name whole beside the arrow (AdjustToContents alone left `atomic_sum_256k` cut at 1400 px)
            fm = self.workload.fontMetrics()
            widest = max(fm.horizontalAdvance(self.workload.itemText(i)) for i in range(self.workload.count()))
            self.workload.setMinimumWidth(max(130, widest + 44))
            self.workload.updateGeometry()
            self.files.add(getattr(ev, "files", ()) or ())

    def _compiled(self):
        """The status line of the compile just finished: its CompileFinished (tiers, errors) and the
        kernels that failed to lower, as the session has them."""
        if not self._split_restored:   # first compile, nothing remembered: the tree as wide as its columns
            self._split_restored = True
            total = sum(self.split.sizes())
            tree = min(self.tree.content_width(), int(FIRST_TREE_SHARE * total))   # the code panes need the rest
            self.split.setSizes([tree, total - tree])
            self.split.want_tree(tree)
            if not self._code_restored:   # by their size hints alone the source got a third
                code = sum(self.views.sizes())
                self.views.setSizes([int(code * SOURCE_SHARE), code - int(code * SOURCE_SHARE)])
        self.panes.set_choices()
        self.panes.refresh()
        if self.tree.selected_task() is None:
            remembered = self.settings.get(self._selected_key(), "", str)
            self.tree.select(remembered if remembered in self.tree.items else next(iter(self.tree.items), ""))
        else:
            self.tree.publish_selection()   # the views redraw the selected task as it compiled now
        done: CompileFinished | None = self.session.last_compile
        if done is None:
            return
        kernel_errors = [k.error for k in self.session.kernels.values() if k.error]
        broken = self.tree.file_errors
        tiers = ", ".join(f"{v} {k}" for k, v in sorted(done.tiers.items()))
        msg = f"{plural(done.tasks, 'task')} compiled" + (f" ({tiers})" if tiers else "") if done.tasks \
            else "nothing compiled"   # not "0 tasks compiled ()"
        if broken:
            f, m = next(iter(broken.items()))
            msg = f"{Path(f).name} does not load ({m.split(': ', 1)[-1]}); its kernels are marked, " + msg
        if done.errors:
            msg += f" — {done.errors} error(s): " + (kernel_errors[0].splitlines()[0] if kernel_errors else
                                                     "see Messages")
        self.activity.status(msg)
        for (target, task), ct in self.session.compiled.items():
            if target == done.target and ct.error:
                self.messages.log(f"{task}: {ct.error}")

    def _reloaded(self, broken: dict[str, str]):
        self.tree.set_file_errors(broken)   # files still left out (a project opened with one broken)
        self._compiled()

    def _reload_failed(self, error: Exception):
        message = error_text(error)
        m = _FILE_LINE.match(message)
        self.messages.log(f"reload failed: {message}")
        if m:
            path = str(Path(m["file"]).resolve())
            self.tree.set_file_errors({path: message})
            self.activity.status(f"{Path(path).name}:{m['line']}: {message.split(': ', 1)[-1]} — "
                                         f"kernels of {Path(path).name} marked as errors; the others keep their "
                                         "last good version")
        else:
            self.activity.status(f"reload failed: {message.splitlines()[0]}")

    def bridge_busy(self) -> bool:
        """Whether any job is queued or running on the engine thread (quiet ones too)."""
        return self.bridge.busy_now()

    def _backend_changed(self, backend):
        self.tree.set_backend(backend)
        self.views.ptx_panel.set_backend(backend)
        self.cluster.backend_changed()

    def _selected_key(self) -> str:
        return f"selected/{self.project_path or ''}"

    def _selected(self, sel: Selection):
        """What the views do not do themselves on a new selection (they follow the session's): the
        task to select when this project reopens, and the Panes page's pane that follows the selection."""
        if sel.task and self.project_path:
            self.settings.set(self._selected_key(), sel.task)
        if sel.shown and not sel.error:
            self.panes.follow(sel.shown)

    def open_quadrants_program(self, path: str | None = None, arch: str | None = None):
        """A real Quadrants program in a window of its own (gui/quadrants_window/quadrants_view.py); its messages land here."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, "Open Quadrants program", "",
                                                  "Python programs (*.py);;Saved runs (qdexplorer quadrants --json) (*.json)")
            if not path:
                return None
        win = QuadrantsWindow(path, arch=arch or self.backend.currentText())
        win.message.connect(self.messages.log)
        self.quadrants_windows = [w for w in getattr(self, "quadrants_windows", []) if w.isVisible()] + [win]
        win.show()
        win.show_saved(path) if path.endswith(".json") else win.run()
        return win

    # ---- settings
    def _restore_settings(self):
        s = self.settings
        s.restore_geometry("main", self)
        s.restore_state("main", self)
        self._split_restored = s.restore_state("split", self.split)
        for key, sp in (("right", self.right), ("timings", self.plots)):
            s.restore_state(key, sp)
        self._code_restored = s.restore_state("code", self.views)
        self.repeat.setValue(s.get("run/repeat", self.repeat.value(), int))
        backend = s.get("run/backend", "", str)
        if backend and self.backend.model().item(self.backend.findText(backend)).isEnabled():
            self.backend.setCurrentText(backend)
        lp = self.plots.launches
        lp.scope.setCurrentText(s.get("plots/scope", lp.scope.currentText(), str))
        lp.log_scale.setChecked(s.get("plots/log", False, bool))
        self.actions.dark.setChecked(current_theme() == "dark")

    def save_settings(self):
        s = self.settings
        s.save_geometry("main", self)
        s.save_state("main", self)
        for key, sp in (("split", self.split), ("right", self.right), ("timings", self.plots), ("code", self.views)):
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
        self.setWindowTitle(f"qdexplorer — {self.projects.name}" + (f"  ({self.project_path})" if self.project_path else ""))

    # ---- closing
    def terminate(self):
        """SIGTERM / SIGINT (gui/plumbing/exit_signals.py): stop a run, close without asking, as Quit would."""
        self.bridge.stop()
        self._closing = True
        self.close()

    def closeEvent(self, event):  # noqa: N802 - Qt's name
        """Never raises: PySide aborts the process on an exception escaping a virtual override."""
        try:
            self._close(event)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            event.accept()

    def _close(self, event):
        if self._shut_down:
            event.accept()
            return
        if not self._closing and not self.projects.confirm_discard_drafts():
            event.ignore()
            return
        self._closing = self._shut_down = True
        self.save_settings()
        self.panes.save()
        self.hide()
        QApplication.processEvents()
        self.views.ptx_panel.shutdown()
        self.bridge.shutdown()
        super().closeEvent(event)
