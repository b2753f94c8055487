"""Runs Engine commands on one background thread; engine events come back as a Qt signal.

The Engine is not thread-safe, so every command goes through this single worker thread, in
order; the window stays responsive during cold compiles and long runs. Each command carries
its own `returned` / `errored` callbacks (called in the GUI thread), so results are never
dispatched on a command's name.
"""
from __future__ import annotations

import itertools
import traceback

from PySide6.QtCore import QObject, QThread, Signal, Slot


class EngineBridge(QObject):
    event = Signal(object)              # every engine event, delivered in the GUI thread
    busy = Signal(bool)
    _returned = Signal(int, object)
    _errored = Signal(int, str)
    _submit = Signal(int, object, object)

    def __init__(self, make_engine):
        super().__init__()
        self._make_engine = make_engine
        self.engine = None
        self._ids = itertools.count(1)
        self._callbacks: dict[int, tuple] = {}
        self._thread = QThread()
        self._thread.setObjectName("qdexplorer-engine")
        self._worker = _Worker(self)
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run)
        self._returned.connect(self._on_returned)
        self._errored.connect(self._on_errored)
        self._thread.start()

    def submit(self, fn, *args, returned=None, errored=None):
        """Run `fn(engine, *args)` on the engine thread; `returned(result)` or `errored(message)` follows."""
        job = next(self._ids)
        self._callbacks[job] = (returned, errored)
        self._submit.emit(job, fn, args)

    def stop(self):
        """Ask a running workload to stop (thread-safe: it only sets a flag the engine polls)."""
        if self.engine is not None:
            self.engine.stop()

    @Slot(int, object)
    def _on_returned(self, job, result):
        returned, _ = self._callbacks.pop(job, (None, None))
        if returned is not None:
            returned(result)

    @Slot(int, str)
    def _on_errored(self, job, message):
        _, errored = self._callbacks.pop(job, (None, None))
        if errored is not None:
            errored(message)

    def shutdown(self):
        self.stop()
        if self.engine is not None:
            self.submit(lambda eng: eng.close())
        self._thread.quit()
        self._thread.wait(10000)


class _Worker(QObject):
    def __init__(self, bridge: EngineBridge):
        super().__init__()
        self.bridge = bridge

    @Slot(int, object, object)
    def run(self, job, fn, args):
        b = self.bridge
        b.busy.emit(True)
        try:
            if b.engine is None:
                b.engine = b._make_engine()
                b.engine.on(b.event.emit)
                b.engine.announce()
            b._returned.emit(job, fn(b.engine, *args))
        except Exception as e:  # noqa: BLE001 - shown to the user, never a crash
            ours = "qdexplorer" in type(e).__module__
            b._errored.emit(job, str(e) if ours else f"{type(e).__name__}: {e}\n" + traceback.format_exc(limit=-2))
        finally:
            b.busy.emit(False)
