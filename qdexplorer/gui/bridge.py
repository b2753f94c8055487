"""Runs Engine commands on one background thread and turns engine events into Qt signals.

The Engine is not thread-safe, so every command goes through this single worker thread, in
order; the window stays responsive during cold compiles and long runs.
"""
from __future__ import annotations

import traceback

from PySide6.QtCore import QObject, QThread, Signal, Slot


class EngineBridge(QObject):
    event = Signal(object)          # any engine event (CompileEvent, LaunchEvent, ...)
    done = Signal(str, object)      # (command, result)
    failed = Signal(str, str)       # (command, message)
    busy = Signal(bool)
    _submit = Signal(str, object, object)

    def __init__(self, make_engine):
        super().__init__()
        self._make_engine = make_engine
        self.engine = None
        self._thread = QThread()
        self._thread.setObjectName("qdexplorer-engine")
        self._worker = _Worker(self)
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run)
        self._thread.start()

    def submit(self, name: str, fn, *args):
        """Run `fn(engine, *args)` on the engine thread; `done(name, result)` follows."""
        self._submit.emit(name, fn, args)

    def shutdown(self):
        self.submit("close", lambda eng: eng.close() if eng else None)
        self._thread.quit()
        self._thread.wait(10000)


class _Worker(QObject):
    def __init__(self, bridge: EngineBridge):
        super().__init__()
        self.bridge = bridge

    @Slot(str, object, object)
    def run(self, name, fn, args):
        b = self.bridge
        b.busy.emit(True)
        try:
            if b.engine is None and name != "close":
                b.engine = b._make_engine()
                b.engine.on(b.event.emit)
            result = fn(b.engine, *args)
            b.done.emit(name, result)
        except Exception as e:  # noqa: BLE001 - shown to the user, never a crash
            msg = str(e) if "qdexplorer" in type(e).__module__ else f"{type(e).__name__}: {e}"
            b.failed.emit(name, msg + ("" if "qdexplorer" in type(e).__module__ else
                                       "\n" + traceback.format_exc(limit=-2)))
        finally:
            b.busy.emit(False)
