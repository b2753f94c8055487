"""SIGTERM or SIGHUP before the command's own handler is in place: the documented exit status.

The CLI's handler (`cli._main`) turns SIGTERM into an orderly stop that saves what finished and
exits 143 (SIGHUP: 129). It is installed once the command line is parsed, which is after the
imports: about 3 s of a 2-core machine's time, more under load. A signal in that window killed the
process by the default action (status -15 to a parent, no message), so `devices --cluster local`
signalled while it started gave 143 only in 4 of 5 tries (issue 33). Nothing has started yet in
that window (no helper process, no cluster, nothing to save), so the early handler only exits,
quietly, with the status the command would have given.

Installed only when this process was started as the command (`qdexplorer`, `python -m qdexplorer`,
`python -m qdexplorer.cli`, the frozen app), on the main thread, and only where SIGTERM still has its
default action: importing qdexplorer as a library, in a test, a Ray worker or a compile-pool child
changes nothing.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path
from types import FrameType


def started_as_the_command(argv: list[str] | None = None) -> bool:
    argv = sys.argv if argv is None else argv
    if not argv:
        return False
    first = Path(argv[0])
    # `python -m qdexplorer.cli`: while the module is found (its packages imported), argv[0] is "-m"
    return argv[0] == "-m" or first.name == "qdexplorer" or (first.name == "__main__.py" and
                                                              first.parent.name == "qdexplorer") \
        or bool(getattr(sys, "frozen", False))


_held: list[bool] = [False]
_done: list[int] = []   # the command's exit status, once it has returned


def _exit_quietly(signum: int, _frame: FrameType | None) -> None:
    if _done:   # the command finished and is on its way out: end the exit now, with the command's status
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, RuntimeError):
                pass
        os._exit(_done[0])
    raise SystemExit(128 + signum)


def held() -> bool:
    """This process was started as the command (decided at its first import, when argv still says so)."""
    return _held[0]


def exiting(rc: int) -> None:
    """The command returned `rc` and its cleanup is done; what is left is Python's own exit (exit
    handlers, finalization), during which Python puts back the default action: a signal then killed
    the process (status -15) or raised in an exit handler ('Exception ignored in atexit callback').
    From here a signal ends the exit at once, with the command's status; the output is flushed first."""
    if not _held[0]:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    _done[:] = [rc]
    for s in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) is not signal.SIG_IGN:
            signal.signal(s, _exit_quietly)


def hold_early() -> bool:
    """Install the early handler where it belongs (see the module's docstring); True if it did."""
    if not started_as_the_command() or threading.current_thread() is not threading.main_thread():
        return False
    done = False
    for s in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) is signal.SIG_DFL:   # a nohup's SIG_IGN, or a host's own handler, stands
            signal.signal(s, _exit_quietly)
            done = True
    _held[0] = done
    return done
