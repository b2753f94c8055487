"""The window's one way to work off the GUI thread: superqt's workers, run in lanes.

A job is a function (or a generator) that runs on a lane's thread; its outcome comes back on the
GUI thread as superqt's typed signals: `returned(object)`, `errored(Exception)` and, for a
generator, `yielded(object)` per value. Errors travel as the exception itself and are put into
words only where they are shown (`error_text`). A lane is a QThreadPool of its own: the engine's
lane has one thread that never expires, because the Engine is driven from one thread, in order;
ptxas checks get another lane, so a long run never delays them.
"""
from __future__ import annotations

import traceback
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal
from superqt.utils import WorkerBase, create_worker

from ...ir.errors import QdError


def error_text(e: BaseException) -> str:
    """What the user reads: our errors as written (they name file:line), anything else with its type
    and the last frames, since it is a bug somewhere (ours or the project's)."""
    if isinstance(e, QdError):
        return str(e)
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-2))
    return f"{type(e).__name__}: {e}\n{tb}".rstrip()


_lanes: weakref.WeakSet[Lane] = weakref.WeakSet()


def shutdown_all(ms: int = 10000) -> bool:
    """Drop queued jobs and wait for running ones, in every lane: called before the app exits, so no
    job finishes (and emits) after Python has started tearing the window's objects down."""
    ok = True
    for lane in list(_lanes):
        try:
            ok = lane.shutdown(ms) and ok
        except RuntimeError:   # its window is gone, and its pool with it (which waited for its jobs)
            _lanes.discard(lane)
    return ok


class Lane(QObject):
    busy = Signal(bool)            # True when the first job the user waits for is queued, False when none is left
    unhandled = Signal(object)     # an Exception from a job submitted without an `errored` callback
    warned = Signal(str)           # a Python warning raised inside a job, as one line

    def __init__(self, name: str, threads: int = 1, parent: QObject | None = None):
        super().__init__(parent)
        self.name = name
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(threads)
        self.pool.setExpiryTimeout(-1)   # the same thread for the lane's life (the engine is driven from one)
        self._jobs: set[WorkerBase] = set()
        self._waited_for: set[WorkerBase] = set()   # the jobs that make the lane busy (not `quiet` ones)
        _lanes.add(self)

    @property
    def running(self) -> bool:
        return bool(self._jobs)

    def submit(self, fn: Callable[..., Any], *args: Any, returned: Callable[[Any], Any] | None = None,
               errored: Callable[[Exception], Any] | None = None,
               yielded: Callable[[Any], Any] | None = None, quiet: bool = False, **kwargs: Any) -> WorkerBase:
        """Run `fn(*args, **kwargs)` on this lane; the callbacks are called on the GUI thread. A `quiet`
        job (a figure the window fills in by itself) does not make the lane busy: no button greys out."""
        worker = create_worker(fn, *args, _start_thread=False, _ignore_errors=True, **kwargs)
        if returned is not None:
            worker.returned.connect(returned)
        worker.errored.connect(errored if errored is not None else self.unhandled.emit)
        if yielded is not None:
            worker.yielded.connect(yielded)
        worker.warned.connect(lambda w: self.warned.emit(warnings.formatwarning(*w[:4]).strip()))
        worker.finished.connect(lambda: self._finished(worker))
        self._jobs.add(worker)
        if not quiet:
            self._waited_for.add(worker)
            if len(self._waited_for) == 1:
                self.busy.emit(True)
        self.pool.start(worker)
        return worker

    def _finished(self, worker: WorkerBase) -> None:
        self._jobs.discard(worker)
        if worker in self._waited_for:
            self._waited_for.discard(worker)
            if not self._waited_for:
                self.busy.emit(False)

    def wait(self, ms: int = 30000) -> bool:
        """Block until every queued job has run (tests, the screenshot mode, closing)."""
        return self.pool.waitForDone(ms)

    def shutdown(self, ms: int = 10000) -> bool:
        """Drop the jobs not started yet and wait for the running one."""
        self.pool.clear()
        return self.pool.waitForDone(ms)
