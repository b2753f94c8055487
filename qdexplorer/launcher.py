"""The `qdexplorer` command: the CLI, plus the window for `qdexplorer gui` (and no command).

This is the one module above both the GUI and the CLI, so the CLI never imports Qt and a
machine without PySide6 still runs every headless command.
"""
from __future__ import annotations

import signal
import sys

from . import cli
from .gui.plumbing.display import display_problem  # no Qt: asked before Qt, whose own answer is an abort
from .ir.errors import QdError


def _gui(a) -> int:
    """The window. SIGINT and SIGTERM are held from here until the window's own handlers take over
    (gui/plumbing/exit_signals.py), which then act on one that came early: the CLI's handler would raise
    KeyboardInterrupt inside whatever runs, and during Qt's start that is a C++ callback, where the
    exception is printed and lost (the app then waited forever behind its first dialog) or aborts."""
    held: list[int] = []
    previous = {s: signal.signal(s, lambda signum, _frame: held.append(signum))
                for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return _open_window(a, held)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def _open_window(a, held: list[int]) -> int:
    problem = None if getattr(a, "screenshot", None) else display_problem()
    if problem:
        raise QdError(problem)
    try:   # deliberate lazy load: Qt only for the window, so every headless command runs without PySide6
        from .gui.app import main as gui_main
    except ImportError as e:
        raise QdError(f"the desktop app needs PySide6-Essentials and pyqtgraph ({e}); "
                      f"pip install PySide6-Essentials pyqtgraph, or use the compile/run commands") from None
    return gui_main(a.project, screenshot=getattr(a, "screenshot", None), workload=getattr(a, "workload", None),
                    size=getattr(a, "size", None) or "1400x900", theme=getattr(a, "theme", None),
                    repeat=getattr(a, "repeat", None), held_signals=held)


def main(argv=None) -> int:
    return cli.main(argv, gui_main=_gui)


if __name__ == "__main__":
    sys.exit(main())
