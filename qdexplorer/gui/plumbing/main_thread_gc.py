"""Python's cyclic garbage collector, run on the GUI thread only.

The window compiles and runs in worker threads. If the collector happens to run in one of them
and frees a Qt object that belongs to the GUI thread (a closed dialog, an old plot item in a
reference cycle), the object's destructor takes Qt's signal-slot lock there and then waits for
the GIL, while the GUI thread holds the GIL and waits for that lock: the window freezes for good.
This was caught as a hung test (a worker's `gc_collect_main` → `QObject::disconnect` against the
GUI thread's `QMetaObject::disconnect`). So automatic collection is switched off and a timer on
the GUI thread collects whenever the collector's own thresholds say it would have.
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 250


class MainThreadGC(QObject):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(INTERVAL_MS)
        gc.disable()

    def check(self):
        counts = gc.get_count()
        for gen in (2, 1, 0):
            if counts[gen] > self.threshold[gen]:
                gc.collect(gen)
                return

    def stop(self):
        """Give collection back to Python (tests; the app keeps it until it exits)."""
        self.timer.stop()
        gc.collect()
        gc.enable()


_installed: MainThreadGC | None = None


def install(app) -> MainThreadGC:
    """Once per process, owned by the QApplication (so it lives on the GUI thread)."""
    global _installed
    if _installed is None:
        _installed = MainThreadGC(app)
    return _installed


def uninstall():
    global _installed
    if _installed is not None:
        _installed.stop()
        _installed.deleteLater()
        _installed = None
