"""Importing a project runs its code: a top-level endless loop must end in a message, not a hang.

A timer raises `ImportTimedOut` in the importing thread (`PyThreadState_SetAsyncExc`, so it works
in the GUI's background thread as well as in the CLI's main thread). It interrupts Python code
(a `while True:` at top level); a C call that never returns is not interruptible this way, and
the device worker's own timeout covers that case. `QDEXPLORER_IMPORT_TIMEOUT` (seconds, default
60) sets the limit; 0 switches it off.
"""
from __future__ import annotations

import ctypes
import os
import threading
from contextlib import contextmanager

from ..lang.errors import QdError

DEFAULT_IMPORT_TIMEOUT = 60.0


class ImportTimedOut(BaseException):
    """Raised inside the project's code; a BaseException so that `except Exception:` there cannot
    swallow it."""


def import_timeout() -> float:
    raw = os.environ.get("QDEXPLORER_IMPORT_TIMEOUT", "")
    try:
        return float(raw) if raw.strip() else DEFAULT_IMPORT_TIMEOUT
    except ValueError:
        raise QdError(f"QDEXPLORER_IMPORT_TIMEOUT must be a number of seconds, got {raw!r}") from None


def _async_raise(thread_id: int, exc) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


@contextmanager
def import_deadline(project, files=(), seconds: float | None = None):
    """Interrupt the body after `seconds` with a QdError naming the project and what to do."""
    seconds = import_timeout() if seconds is None else seconds
    if seconds <= 0:
        yield
        return
    tid = threading.get_ident()
    lock = threading.Lock()
    state = {"done": False, "fired": False}

    def fire():
        with lock:
            if not state["done"]:
                state["fired"] = True
                _async_raise(tid, ImportTimedOut)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    except ImportTimedOut as e:
        where = _user_frame(e, {str(f) for f in files})
        raise QdError(f"{where or project}: importing the project did not finish within {seconds:g} s "
                      f"(an endless loop at top level?); fix it, or set QDEXPLORER_IMPORT_TIMEOUT=SECONDS "
                      f"to allow longer") from None
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["fired"]:
                _async_raise(tid, None)  # an exception raised but not yet delivered must not escape later


def _user_frame(e: BaseException, files: set) -> str:
    """file:line of the innermost project frame the timeout interrupted."""
    tb, last = e.__traceback__, ""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            last = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return last
