"""The window's menus and shortcuts (File, Edit, View, Run, Help) and the About box.

Every command is a QAction with the platform's standard shortcut where one exists (Open, Save,
Find, Quit), so the menus, the toolbar and the keyboard all reach the same code.
"""
from __future__ import annotations

import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl, qVersion
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QMessageBox

from ..compiler import ptxas
from ..runtime.cuda.detect import cuda_status

from .run_toolbar import RunToolbar, command

if TYPE_CHECKING:   # types only: the window builds these parts and hands them in; menus.py needs none of their modules
    from .code.code_views import CodeViews
    from .code.panes import PaneArea
    from .code_edits import CodeEdits
    from .services import WindowServices
    from .task_tree import TaskTree
    from .timing.bench_actions import BenchActions
    from .timing.timings import TimingsPanel

DOCS = "https://github.com/qdexplorer/qdexplorer#readme"
_ROOT = Path(__file__).resolve().parents[2]   # a checkout's (or the frozen app's) folder above the package


def docs_url() -> QUrl:
    """Help ▸ Documentation: the window's own page (docs/app.md) from disk where it was installed
    with the code (a checkout, an editable install, the one-folder app, which bundles docs/), so it
    matches the version running and works offline; the project's web page only where it is not."""
    page = _ROOT / "docs" / "app.md"
    return QUrl.fromLocalFile(str(page)) if page.is_file() else QUrl(DOCS)


def _listed(menu: QMenu, a: QAction, slot: Callable[[], object]) -> QAction:
    a.triggered.connect(lambda *_: slot())
    menu.addAction(a)
    return a


def _act(parent, menu, text, slot, shortcut=None, tip=""):
    return _listed(menu, command(text, parent, shortcut, tip), slot)


@dataclass
class MenuActions:
    """The actions and submenus the window keeps: the toolbar shows some, commands enable others."""
    open: QAction
    open_file: QAction
    recent_menu: QMenu
    open_quadrants: QAction
    save: QAction
    reload: QAction
    quit: QAction
    check: QAction
    dark: QAction
    dist: QAction
    log: QAction
    panels_menu: QMenu
    compile: QAction
    run: QAction
    stop: QAction
    about: QAction


@dataclass(frozen=True)
class WindowCommands:
    """The window's own slots the menus reach: they act on the frame itself (its engine's compile and
    reload, its theme, closing it, a Quadrants window beside it)."""
    compile: Callable[[], None]
    reload: Callable[[], None]
    quit: Callable[[], object]
    set_dark: Callable[[bool], None]
    open_quadrants: Callable[[], object]


@dataclass(frozen=True)
class MenuParts:
    """The parts whose commands and views the menus wire, each given as itself (not reached through
    the window): the Run toolbar's actions, the code views, the plots, the tree, the Panes page, the
    code edits' commands and the bench's."""
    toolbar: RunToolbar
    views: CodeViews
    plots: TimingsPanel
    tree: TaskTree
    panes: PaneArea
    edits: CodeEdits
    bench: BenchActions


def build_menus(bar: QMenuBar, services: WindowServices, parts: MenuParts, window: WindowCommands) -> MenuActions:
    """The menu bar `bar`, its commands connected to the parts that own them and to the window's own
    slots; the actions are handed back, for the window to keep."""
    project, runs, pages, tb, views = services.project, services.runs, services.pages, parts.toolbar, parts.views
    f = bar.addMenu("&File")
    open_act = _act(bar, f, "&Open Folder…", lambda: project.open_dialog(folder=True), QKeySequence.Open,
                    "Open a project folder")
    open_file_act = _act(bar, f, "Open &Kernel File…", lambda: project.open_dialog(folder=False), "Ctrl+Shift+O",
                         "Open one Python file of kernels as a project")
    f.addMenu(project.recent_menu)
    open_quadrants_act = _act(bar, f, "Open &Quadrants program…", window.open_quadrants, None,
                              "Run a real Quadrants program and explore what it compiled")
    for a in (open_act, open_file_act):
        a.setEnabled(project.engines.can_open())
    f.addSeparator()
    save_act = _act(bar, f, "&Save PTX Override", parts.edits.save_ptx, QKeySequence.Save,
                    "Check the edited PTX with ptxas and save it as the task's override")
    reload_act = _listed(f, tb.reload, window.reload)
    _act(bar, f, "&Export A/B Report…", parts.bench.export_report, None,
         "The runs picked in Compare as one HTML file that opens anywhere (no scripts, no network): "
         "machine, changed tasks with PTX/SASS diffs, plots and verdicts")
    f.addSeparator()
    quit_act = _act(bar, f, "&Quit", window.quit, QKeySequence.Quit)
    quit_act.setMenuRole(QAction.QuitRole)

    e = bar.addMenu("&Edit")
    _act(bar, e, "&Find…", parts.edits.find, QKeySequence.Find, "Find in the code view on show")
    ptx = views.ptx_panel
    check_act = _act(bar, e, "&Check PTX with ptxas", ptx.validate, "Ctrl+Shift+C",
                     "Assemble the PTX in the editor: errors at their lines, registers, spills")
    _act(bar, e, "&Revert PTX to Generated", ptx.revert, None,
         "Drop the edit (asks first) and the saved override")
    _act(bar, e, "Show PTX &Diff", lambda: (views.setCurrentWidget(ptx), ptx.tabs.setCurrentIndex(1)), "Ctrl+D",
         "Generated PTX beside the edited one")

    v = bar.addMenu("&View")
    dark_act = QAction("&Dark Theme", bar, checkable=True)
    dark_act.setShortcut(QKeySequence("Ctrl+Shift+T"))
    dark_act.toggled.connect(window.set_dark)
    v.addAction(dark_act)
    v.addSeparator()
    lp = parts.plots.launches
    dist_act = QAction("Launch &Distribution", bar, checkable=True)
    dist_act.toggled.connect(lambda on: lp.view.setCurrentIndex(1 if on else 0))
    lp.view.currentIndexChanged.connect(lambda i: dist_act.setChecked(i == 1))
    v.addAction(dist_act)
    log_act = QAction("&Log Scale", bar, checkable=True)
    log_act.toggled.connect(lp.log_scale.setChecked)
    lp.log_scale.toggled.connect(log_act.setChecked)
    v.addAction(log_act)
    scope = v.addMenu("Plot &Tasks")
    group = QActionGroup(bar)
    for i, name in enumerate([lp.scope.itemText(i) for i in range(lp.scope.count())]):
        a = QAction(name, bar, checkable=True)
        a.setChecked(name == lp.scope.currentText())
        a.triggered.connect(lambda _=False, n=name: lp.scope.setCurrentText(n))
        lp.scope.currentTextChanged.connect(lambda t, a=a, n=name: a.setChecked(t == n))
        group.addAction(a)
        scope.addAction(a)
    _act(bar, v, "&Clear Plots", parts.plots.clear, None, "Clear the plots (the tree keeps its medians)")
    v.addSeparator()
    panes = parts.panes
    _act(bar, v, "&Pin in a Pane", lambda: (panes.pin(parts.tree.selected_task(), views.current_stage(),
                                                     views.sass_panel.arch.currentText() or None),
                                          pages.show(panes)), "Ctrl+Shift+P",
         "Keep the selected task's code on show (this stage) as a pane of the Panes page, beside others")
    panels_menu = v.addMenu("&Panels")
    for title, w in pages.listed:
        panels_menu.addAction(title, lambda w=w: pages.show(w))

    r = bar.addMenu("&Run")
    compile_act = _listed(r, tb.compile, window.compile)
    run_act = _listed(r, tb.run, runs.run)
    stop_act = _listed(r, tb.stop, runs.stop)

    h = bar.addMenu("&Help")
    _act(bar, h, "&Documentation", lambda: QDesktopServices.openUrl(docs_url()), QKeySequence.HelpContents)
    about_act = _act(bar, h, "&About qdexplorer", lambda: about(bar.window()))
    about_act.setMenuRole(QAction.AboutRole)
    return MenuActions(open_act, open_file_act, project.recent_menu, open_quadrants_act, save_act, reload_act,
                       quit_act, check_act, dark_act, dist_act, log_act, panels_menu, compile_act, run_act, stop_act,
                       about_act)


def versions() -> dict[str, str]:
    def ver(dist):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"
    st = cuda_status()
    found = ptxas.find_ptxas()   # which binary checks edits and counts registers: the path says
    driver = (f"{st.name}, driver {st.driver_version // 1000}.{st.driver_version % 1000 // 10}, {st.arch}"
              if st.available else f"none ({st.reason})")
    return {"qdexplorer": ver("qdexplorer") if ver("qdexplorer") != "not installed" else "source checkout",
            "Qt": qVersion(), "PySide6": ver("PySide6-Essentials") if ver("PySide6-Essentials") != "not installed"
            else ver("PySide6"), "pyqtgraph": ver("pyqtgraph"), "llvmlite": ver("llvmlite"),
            "Python": sys.version.split()[0], "platform": platform.platform(terse=True),
            "ptxas": f"{ptxas.ptxas_version(found)} ({found})" if found else "not found", "CUDA": driver}


def about(parent):
    rows = "".join(f"<tr><td><b>{k}</b></td><td>&nbsp;{v}</td></tr>" for k, v in versions().items())
    QMessageBox.about(parent, "About qdexplorer",
                      "<h3>qdexplorer</h3><p>Explore, edit and time what Quadrants-style GPU kernels compile to, "
                      f"one offloaded task at a time.</p><table>{rows}</table>")
