"""The open project and opening another: its path and session; ask whether a folder is trusted,
keep unsaved PTX edits from being lost, open it on the engine thread, fall back to another (the
bundled demo) when it cannot, say why, and keep File ▸ Open Recent current.

A part of its own because trust, drafts, fallback and the recent list are one decision ("may
this project replace the open one, and what if it fails?"), and the answer is the project the
helpers then ask about (`path`, `session`: `WindowServices.project`); the window only takes the
project that stands (`opened`) and wires its fresh session.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox, QWidget

from ..project.loader import Project, bundled_demo
from ..project.trust import TrustStore
from ..session import Session
from .bridge import EngineBridge
from .code.ptx_panel import PtxPanel
from .engine_factory import EngineFactory
from .parts import Activity, Messages
from .plumbing.workers import error_text
from .settings import Settings
from .trust_dialog import confirm_trust


class ProjectOpener:
    """`path`, `name`, `session`: the open project's (`path` None until one stands; a fresh session
    each time one opens); `recent_menu`: File ▸ Open Recent, for the menus to list. `open_error`: why
    the last project could not be opened (None: it could); `unattended` (--screenshot): errors are
    kept there, never asked about in a dialog."""

    def __init__(self, parent: QWidget, bridge: EngineBridge, engines: EngineFactory, trust: TrustStore,
                 settings: Settings, ptx_panel: PtxPanel, opened: Callable[[Project, str], None],
                 messages: Messages, activity: Activity, session: Session, name: str):
        self.parent, self.bridge, self.engines, self.trust, self.settings = parent, bridge, engines, trust, settings
        self.ptx_panel, self.opened, self.log, self.status = ptx_panel, opened, messages.log, activity.status
        self.recent_menu = QMenu("Open &Recent", parent)
        self.path: str | None = None
        self.name, self.session = name, session
        self.unattended = False
        self.open_error: str | None = None

    def take(self, project: Project) -> Session:
        """`project` stands: it is the open one, with a fresh session, which is returned."""
        self.session = Session()
        self.path, self.name = str(project.path), project.name
        return self.session

    def reopen(self, build, errored: Callable[[Exception], None]) -> None:
        """The open project again, its engine from `build` (elsewhere: another cluster or device)."""
        self.bridge.open(build, returned=lambda project: self.opened(project, ""), errored=errored)

    def open_dialog(self, folder: bool) -> None:
        """File ▸ Open Folder / Open Kernel File: ask for one, starting beside the open project."""
        start = str(Path(self.path).parent) if self.path else str(Path.home())
        if folder:
            path = QFileDialog.getExistingDirectory(self.parent, "Open project folder", start)
        else:
            path, _ = QFileDialog.getOpenFileName(self.parent, "Open kernel file", start, "Python kernels (*.py)")
        if path:
            self.open(path)

    def open(self, path: str, ask: bool = True, fallback: str | Path | None = None) -> bool:
        """Switch to the project at `path` (a folder or a kernel file). Its import runs on the engine
        thread; until it stands the current project stays open, and a project that fails to open is
        reported, never fatal (with `fallback`, that project is opened instead). `ask`: ask whether
        to trust the folder first (its files are code); the start-up's caller has asked already.
        False when nothing was started (the user declined, or kept unsaved edits)."""
        if ask and not confirm_trust(path, self.trust, self.parent):
            self.log(f"not opening {path}: it is not trusted")
            return False
        if not self.confirm_discard_drafts():
            return False
        self.status(f"opening {path}…")
        self.bridge.open(self.engines(str(path)), returned=lambda project: self.opened(project, ""),
                         errored=lambda e: self._failed(path, e, fallback))
        return True

    def _failed(self, path, error: Exception, fallback: str | Path | None):
        if fallback is not None:
            message = f"could not open {path}: {error_text(error)}"
            self.log(message)
            self.status(message.splitlines()[0])
            self.bridge.open(self.engines(str(fallback)), returned=lambda project: self.opened(project, message),
                             errored=lambda e: self._show_error(fallback, error_text(e)))
            return
        self._show_error(path, error_text(error))

    def _show_error(self, path, message):
        self.log(f"cannot open {path}: {message}")
        self.status(f"cannot open {Path(path).name}: {message.splitlines()[0]}")
        self.open_error = message
        if not self.unattended:   # --screenshot: nobody would ever close the box, and it would wait forever
            QMessageBox.warning(self.parent, "qdexplorer — cannot open project", message)

    def set_unattended(self) -> None:
        """--screenshot: errors are returned, never asked about in a dialog."""
        self.unattended = True

    def update_recent_menu(self):
        menu = self.recent_menu
        menu.clear()
        demo = str(bundled_demo())
        for p in self.settings.recent():  # the demo by name, not by its path inside site-packages
            menu.addAction("Bundled demo" if p == demo else p, lambda p=p: self.open(p))
        menu.setEnabled(bool(self.settings.recent()))
        if self.settings.recent():
            menu.addSeparator()
            menu.addAction("Clear list", lambda: (self.settings.clear_recent(), self.update_recent_menu()))

    def confirm_discard_drafts(self) -> bool:
        """Unsaved PTX edits are dropped only when the user says so."""
        drafts = self.ptx_panel.dirty_tasks()
        return not drafts or self.ptx_panel.confirm_discard(drafts)
