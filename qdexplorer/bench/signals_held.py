"""Ctrl-C and SIGTERM held back while a write is under way.

A signal handler runs between any two bytecodes of the main thread: raised as KeyboardInterrupt
just after a history transaction committed but before the writer counted it, it left the writer
and the file disagreeing ("written with 162 launches, but 164 read back"), and a sweep reported
its history damaged when it was not. Inside `signals_held()` a SIGINT or SIGTERM is only
recorded; when the block ends, the handler that was in place gets it (the CLI's raises
KeyboardInterrupt(15) for SIGTERM, Python's raises KeyboardInterrupt for SIGINT).
"""
from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextmanager
def signals_held() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield   # signals are only ever handled on the main thread
        return
    got: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        got.append(signum)
    before: dict[int, Any] = {int(sig): signal.getsignal(sig) for sig in HELD}
    for sig, handler in before.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, note)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        if got:
            handler = before[got[0]]
            if callable(handler):
                handler(got[0], None)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), got[0])
