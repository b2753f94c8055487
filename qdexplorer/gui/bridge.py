"""The window's engine: built, driven and closed on one background thread; its events come back as a Qt signal.

The Engine is not thread-safe, so everything that touches it is a job on the engine's lane (one
thread, jobs in order), and the window stays responsive during an import, a cold compile or a
long run. Opening a project is such a job too: building an Engine imports the project, which runs
its code, and that must never block (or crash) the GUI thread. Each job carries its own
`returned` / `errored` callbacks, called on the GUI thread.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..engine import Engine
from ..ir.errors import QdError
from ..project.loader import Project
from .plumbing.workers import Lane


class EngineBridge(QObject):
    event = Signal(object)              # every engine event, delivered in the GUI thread
    busy = Signal(bool)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.lane = Lane("qdexplorer-engine", threads=1, parent=self)
        self.lane.busy.connect(self.busy)
        self._engine: Engine | None = None
        self._unsubscribe: Callable[[], None] | None = None

    @property
    def engine(self) -> Engine | None:
        """The open engine: only jobs (on the engine thread) may drive it; tests read it once idle."""
        return self._engine

    def open(self, make_engine: Callable[[], Engine], returned: Callable[[Project], Any] | None = None,
             errored: Callable[[Exception], Any] | None = None) -> None:
        """Build a new engine with `make_engine()` (it imports the project) on the engine thread; once
        it stands, the previous one is closed and `returned(project)` follows. When it fails the
        previous engine stays open and `errored(exception)` follows. The new engine announces its
        project only when `announce` is submitted, so the window can swap its session in between."""
        def job() -> Project:
            eng = make_engine()
            self._close_engine()
            self._engine = eng
            self._unsubscribe = eng.subscribe(self.event.emit)
            return eng.project
        self.lane.submit(job, returned=returned, errored=errored)

    def submit(self, fn: Callable[..., Any], *args: Any, returned: Callable[[Any], Any] | None = None,
               errored: Callable[[Exception], Any] | None = None, quiet: bool = False) -> None:
        """Run `fn(engine, *args)` on the engine thread; `returned(result)` or `errored(exception)` follows.
        `quiet`: a job the user did not ask for (a resource estimate) does not grey out the actions."""
        def job() -> Any:
            if self._engine is None:
                raise QdError("no project is open")
            return fn(self._engine, *args)
        self.lane.submit(job, returned=returned, errored=errored, quiet=quiet)

    def busy_now(self) -> bool:
        return self.lane.running

    def stop(self) -> None:
        """Ask a running workload to stop (thread-safe: it only sets a flag the engine polls)."""
        eng = self._engine
        if eng is not None:
            eng.stop()

    def _close_engine(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._engine is not None:
            self._engine.close()
            self._engine = None

    def shutdown(self, ms: int = 10000) -> None:
        """Stop a run, drop queued jobs, close the engine (its worker processes) on its own thread."""
        self.stop()
        self.lane.pool.clear()
        self.lane.submit(self._close_engine)
        self.lane.wait(ms)
