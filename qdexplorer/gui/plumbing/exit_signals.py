"""SIGTERM and SIGINT end the window cleanly, from any state, with the shell's status (143, 130).

The CLI turns SIGTERM into KeyboardInterrupt; inside Qt's event loop that exception only lands in
whatever slot happens to run (a timer's, say), is printed, and the app keeps going. Here the
signal is noted instead, and handled from the event loop: open dialogs are rejected (a question
waiting for an answer must not keep the process alive), a run in progress is stopped, the window
closes as it would from File ▸ Quit (settings saved, the engine and its worker processes closed)
without asking about unsaved edits, and the app exits with 128 + the signal's number.
"""
from __future__ import annotations

import signal
from types import FrameType
from typing import Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication, QDialog

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class ExitOnSignal(QObject):
    def __init__(self, app: QApplication, held: list[int] | None = None):
        """`held`: signals that came before Qt was up (the launcher holds them); the first is acted on."""
        super().__init__(app)
        self.code: int | None = None
        self.window: Any = None          # the main window, once there is one (its terminate() closes it)
        self._tick = QTimer(self)         # Python runs signal handlers only when it gets control:
        self._tick.timeout.connect(lambda: None)   # a timer gives it control while Qt waits for events
        self._tick.start(200)
        self._restored = False
        self._previous = {s: signal.signal(s, self._on_signal) for s in SIGNALS}
        if held:
            self._on_signal(held[0], None)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.code is not None:
            return
        self.code = 128 + signum
        for w in QApplication.topLevelWidgets():
            if isinstance(w, QDialog) and w.isVisible():
                w.reject()
        QTimer.singleShot(0, self._finish)   # from the main event loop, once the dialogs' loops are left

    def _finish(self) -> None:
        if self._restored:   # the app already ended (a signal held from its start): exit nothing now
            return
        if self.window is not None:
            self.window.terminate()
        QApplication.exit(self.code or 0)

    def restore(self) -> None:
        self._restored = True
        self._tick.stop()
        for s, h in self._previous.items():
            signal.signal(s, h)
