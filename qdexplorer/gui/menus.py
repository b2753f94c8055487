"""The window's menus and shortcuts (File, Edit, View, Run, Help) and the About box.

Every command is a QAction with the platform's standard shortcut where one exists (Open, Save,
Find, Quit), so the menus, the toolbar and the keyboard all reach the same code.
"""
from __future__ import annotations

import platform
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from ..compiler import ptxas
from ..runtime.cuda.detect import cuda_status

DOCS = "https://github.com/qdexplorer/qdexplorer#readme"
_ROOT = Path(__file__).resolve().parents[2]   # a checkout's (or the frozen app's) folder above the package


def docs_url() -> QUrl:
    """Help ▸ Documentation: the window's own page (docs/app.md) from disk where it was installed
    with the code (a checkout, an editable install, the one-folder app, which bundles docs/), so it
    matches the version running and works offline; the project's web page only where it is not."""
    page = _ROOT / "docs" / "app.md"
    return QUrl.fromLocalFile(str(page)) if page.is_file() else QUrl(DOCS)


def _act(win, menu, text, slot, shortcut=None, tip=""):
    a = QAction(text, win)
    if shortcut is not None:
        a.setShortcut(QKeySequence(shortcut))
        a.setShortcutContext(Qt.WindowShortcut)
    if tip:
        a.setStatusTip(tip)
        a.setToolTip(f"{tip} ({a.shortcut().toString(QKeySequence.NativeText)})" if shortcut is not None else tip)
    a.triggered.connect(lambda *_: slot())
    menu.addAction(a)
    return a


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


def build_menus(win) -> MenuActions:
    """The menu bar of `win`, its commands connected to the window's public slots; the actions
    are handed back, for the window to keep."""
    mb = win.menuBar()
    f = mb.addMenu("&File")
    open_act = _act(win, f, "&Open Folder…", lambda: open_dialog(win, folder=True), QKeySequence.Open,
                    "Open a project folder")
    open_file_act = _act(win, f, "Open &Kernel File…", lambda: open_dialog(win, folder=False), "Ctrl+Shift+O",
                         "Open one Python file of kernels as a project")
    recent_menu = f.addMenu("Open &Recent")
    open_quadrants_act = _act(win, f, "Open &Quadrants program…", win.open_quadrants_program, None,
                              "Run a real Quadrants program and explore what it compiled")
    for a in (open_act, open_file_act):
        a.setEnabled(win.engines.can_open())
    f.addSeparator()
    save_act = _act(win, f, "&Save PTX Override", lambda: win.edits.save_ptx(), QKeySequence.Save,
                    "Check the edited PTX with ptxas and save it as the task's override")
    reload_act = _act(win, f, "Re&load", win.reload, "Ctrl+R", "Re-read the project's files and recompile")
    _act(win, f, "&Export A/B Report…", lambda: win.bench.export_report(), None,
         "The runs picked in Compare as one HTML file that opens anywhere (no scripts, no network): "
         "machine, changed tasks with PTX/SASS diffs, plots and verdicts")
    f.addSeparator()
    quit_act = _act(win, f, "&Quit", win.close, QKeySequence.Quit)
    quit_act.setMenuRole(QAction.QuitRole)

    e = mb.addMenu("&Edit")
    _act(win, e, "&Find…", lambda: win.edits.find(), QKeySequence.Find, "Find in the code view on show")
    check_act = _act(win, e, "&Check PTX with ptxas", lambda: win.views.ptx_panel.validate(), "Ctrl+Shift+C",
                     "Assemble the PTX in the editor: errors at their lines, registers, spills")
    _act(win, e, "&Revert PTX to Generated", lambda: win.views.ptx_panel.revert(), None,
         "Drop the edit (asks first) and the saved override")
    _act(win, e, "Show PTX &Diff", lambda: (win.views.setCurrentWidget(win.views.ptx_panel),
                                            win.views.ptx_panel.tabs.setCurrentIndex(1)), "Ctrl+D",
         "Generated PTX beside the edited one")

    v = mb.addMenu("&View")
    dark_act = QAction("&Dark Theme", win, checkable=True)
    dark_act.setShortcut(QKeySequence("Ctrl+Shift+T"))
    dark_act.toggled.connect(win.set_dark)
    v.addAction(dark_act)
    v.addSeparator()
    lp = win.plots.launches
    dist_act = QAction("Launch &Distribution", win, checkable=True)
    dist_act.toggled.connect(lambda on: lp.view.setCurrentIndex(1 if on else 0))
    lp.view.currentIndexChanged.connect(lambda i: dist_act.setChecked(i == 1))
    v.addAction(dist_act)
    log_act = QAction("&Log Scale", win, checkable=True)
    log_act.toggled.connect(lp.log_scale.setChecked)
    lp.log_scale.toggled.connect(log_act.setChecked)
    v.addAction(log_act)
    scope = v.addMenu("Plot &Tasks")
    group = QActionGroup(win)
    for i, name in enumerate([lp.scope.itemText(i) for i in range(lp.scope.count())]):
        a = QAction(name, win, checkable=True)
        a.setChecked(name == lp.scope.currentText())
        a.triggered.connect(lambda _=False, n=name: lp.scope.setCurrentText(n))
        lp.scope.currentTextChanged.connect(lambda t, a=a, n=name: a.setChecked(t == n))
        group.addAction(a)
        scope.addAction(a)
    _act(win, v, "&Clear Plots", win.plots.clear, None, "Clear the plots (the tree keeps its medians)")
    v.addSeparator()
    _act(win, v, "&Pin in a Pane", lambda: (win.panes.pin(win.tree.selected_task(), win.views.current_stage(),
                                                         win.views.sass_panel.arch.currentText() or None),
                                          win.pages.setCurrentWidget(win.panes)), "Ctrl+Shift+P",
         "Keep the selected task's code on show (this stage) as a pane of the Panes page, beside others")
    panels_menu = v.addMenu("&Panels")
    for i in range(win.bottom.count()):
        w = win.bottom.widget(i)
        panels_menu.addAction(win.bottom.tabText(i), lambda w=w: win.bottom.setCurrentWidget(w))

    r = mb.addMenu("&Run")
    compile_act = _act(win, r, "&Compile", win.compile, "Ctrl+B", "Compile every task to PTX")
    run_act = _act(win, r, "&Run", lambda: win.runs.run(), "F5", "Run the workload on the chosen backend")
    stop_act = _act(win, r, "&Stop", lambda: win.runs.stop(), "Shift+F5", "Stop the run after the launch in flight")
    stop_act.setEnabled(False)

    h = mb.addMenu("&Help")
    _act(win, h, "&Documentation", lambda: QDesktopServices.openUrl(docs_url()), QKeySequence.HelpContents)
    about_act = _act(win, h, "&About qdexplorer", lambda: about(win))
    about_act.setMenuRole(QAction.AboutRole)
    return MenuActions(open_act, open_file_act, recent_menu, open_quadrants_act, save_act, reload_act, quit_act,
                       check_act, dark_act, dist_act, log_act, panels_menu, compile_act, run_act, stop_act, about_act)


def open_dialog(win, folder: bool):
    start = str(Path(win.project_path).parent) if win.project_path else str(Path.home())
    if folder:
        path = QFileDialog.getExistingDirectory(win, "Open project folder", start)
    else:
        path, _ = QFileDialog.getOpenFileName(win, "Open kernel file", start, "Python kernels (*.py)")
    if path:
        win.projects.open(path)


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


def about(win):
    rows = "".join(f"<tr><td><b>{k}</b></td><td>&nbsp;{v}</td></tr>" for k, v in versions().items())
    QMessageBox.about(win, "About qdexplorer",
                      "<h3>qdexplorer</h3><p>Explore, edit and time what Quadrants-style GPU kernels compile to, "
                      f"one offloaded task at a time.</p><table>{rows}</table>")
