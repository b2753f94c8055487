"""Importing a project runs its code: a top-level endless loop must end in a message, not a hang.

In the main thread (the CLI) a SIGALRM timer raises `ImportTimedOut`: the signal also interrupts
a blocking call (`time.sleep(600)`, a read of a terminal). In another thread (the GUI's) a timer
raises it with `PyThreadState_SetAsyncExc`, which interrupts Python code (a `while True:` at top
level) but not a C call. Standard input reads as empty during the import: a kernel file has no
one to ask. `QDEXPLORER_IMPORT_TIMEOUT` (seconds, default 60) sets the limit; 0 switches it off.
Python's compile() of a huge file cannot be interrupted either way, so the loader bounds file size.
"""
from __future__ import annotations

import atexit
import ctypes
import io
import math
import os
import signal
import sys
import threading
import weakref
from contextlib import contextmanager

from ..ir.errors import QdError
from ..numbers import env_number

DEFAULT_IMPORT_TIMEOUT = 60.0


class ImportTimedOut(BaseException):
    """Raised inside the project's code; a BaseException so that `except Exception:` there cannot
    swallow it."""


def import_timeout() -> float:
    return float(env_number("QDEXPLORER_IMPORT_TIMEOUT"))   # 0: no limit


_left_running: weakref.WeakSet = weakref.WeakSet()  # non-daemon threads a project's import started
_exit_handlers = {"added": 0}  # atexit callbacks a project's import registered


def threads_left_running() -> list:
    """Threads a project's import started that are still running: Python would wait for them at
    exit (`time.sleep(600)` in one holds the CLI for ten minutes), so the CLI does not."""
    return [t for t in _left_running if t.is_alive()]


def exit_handlers_added() -> int:
    """How many exit handlers the project's own files registered (`atexit.register` of a function
    defined in them; a library's, such as torch's, do not count); they may block the exit."""
    return _exit_handlers["added"]


@contextmanager
def _counting_exit_handlers(files: set):
    real = atexit.register

    def register(fn, *a, **kw):
        if getattr(getattr(fn, "__code__", None), "co_filename", None) in files:
            _exit_handlers["added"] += 1
        return real(fn, *a, **kw)
    setattr(atexit, "register", register)   # for the import only: counts the project's own handlers
    try:
        yield
    finally:
        setattr(atexit, "register", real)


@contextmanager
def _process_kept():
    """The import may not change what the rest of the command relies on: the working folder
    (relative paths such as `--dump reldump`), the SIGINT/SIGTERM handlers (Ctrl-C and SIGTERM
    must still stop it). Threads it leaves running are remembered (`threads_left_running`)."""
    cwd = os.getcwd()
    main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} if main else {}
    before = set(threading.enumerate())
    try:
        yield
    finally:
        if os.getcwd() != cwd:
            os.chdir(cwd)
        for sig, h in handlers.items():
            if h is not None and signal.getsignal(sig) is not h:
                signal.signal(sig, h)
        for t in set(threading.enumerate()) - before:
            if not t.daemon:
                _left_running.add(t)


def _async_raise(thread_id: int, exc) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(exc) if exc else None)


@contextmanager
def import_deadline(project, files=(), seconds: float | None = None):
    """Interrupt the body after `seconds` with a QdError naming the project and what to do."""
    seconds = import_timeout() if seconds is None else seconds
    with _process_kept(), _counting_exit_handlers({str(f) for f in files}), _empty_stdin():
        if seconds <= 0:
            yield
        elif threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer") \
                and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None):
            with _reported(project, files, seconds), _alarm(seconds):
                yield
        else:
            with _reported(project, files, seconds), _async_timer(seconds):
                yield


@contextmanager
def _empty_stdin():
    old = sys.stdin
    sys.stdin = io.StringIO()
    try:
        yield
    finally:
        sys.stdin = old


@contextmanager
def _alarm(seconds: float):
    def fire(signum, frame):
        raise ImportTimedOut
    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextmanager
def _reported(project, files, seconds: float):
    try:
        yield
    except ImportTimedOut as e:
        where = _user_frame(e, {str(f) for f in files})
        raise QdError(f"{where or project}: importing the project did not finish within {seconds:g} s "
                      f"(an endless loop or a blocking call at top level?); fix it, or set "
                      f"QDEXPLORER_IMPORT_TIMEOUT=SECONDS to allow longer") from None


@contextmanager
def _async_timer(seconds: float):
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
