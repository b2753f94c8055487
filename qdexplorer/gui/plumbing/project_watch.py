"""Watching a project's files: saving a kernel file in any editor, or adding or removing one in its
folder, asks for one reload after the burst of events an editor's save makes."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, Slot


class ProjectWatcher(QObject):
    changed = Signal(str)       # one line per file event, for the Messages panel
    reload_wanted = Signal()    # debounced: once per burst

    def __init__(self, parent=None, debounce_ms: int = 300):
        super().__init__(parent)
        self.watcher = QFileSystemWatcher(self)
        self.known: set[str] = set()
        self._debounce = QTimer(self, singleShot=True, interval=debounce_ms)
        self._debounce.timeout.connect(self.reload_wanted)
        self.watcher.fileChanged.connect(self._file_changed)
        self.watcher.directoryChanged.connect(self._dir_changed)

    def watch(self, files):
        """Watch exactly these files (and their folders), dropping what was watched before."""
        old = self.watcher.files() + self.watcher.directories()
        if old:
            self.watcher.removePaths(old)
        self.known = set()
        self.add(files)

    def add(self, files):
        """Also watch these files (new files of a reloaded project)."""
        paths = sorted({str(f) for f in files} - self.known)
        dirs = sorted({str(Path(f).parent) for f in paths} - set(self.watcher.directories()))
        if paths:
            self.watcher.addPaths(paths)
        if dirs:
            self.watcher.addPaths(dirs)
        self.known |= set(paths)

    @Slot(str)
    def _file_changed(self, path):
        if Path(path).exists() and path not in self.watcher.files():  # editors that save by rename drop the watch
            self.watcher.addPath(path)
        self.changed.emit(f"{path} changed: recompiling")
        self._debounce.start()

    @Slot(str)
    def _dir_changed(self, folder):
        present = {str(p) for p in Path(folder).glob("*.py") if not p.name.startswith(("_", "test_"))}
        new = sorted(present - self.known)
        gone = sorted(f for f in self.known if Path(f).parent == Path(folder) and not Path(f).exists())
        for f in new:
            self.changed.emit(f"new file {f}: reloading the project")
        for f in gone:
            self.changed.emit(f"{f} was removed: reloading the project")
        if new or gone:
            self._debounce.start()
