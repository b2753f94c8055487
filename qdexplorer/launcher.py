"""The `qdexplorer` command: the CLI, plus the window for `qdexplorer gui` (and no command).

This is the one module above both the GUI and the CLI, so the CLI never imports Qt and a
machine without PySide6 still runs every headless command.
"""
from __future__ import annotations

import sys

from . import cli
from .lang.errors import QdError


def _gui(a) -> int:
    from .gui.display import display_problem  # asked before Qt, whose own answer is an abort
    problem = None if getattr(a, "screenshot", None) else display_problem()
    if problem:
        raise QdError(problem)
    try:
        from .gui.app import main as gui_main
    except ImportError as e:
        raise QdError(f"the desktop app needs PySide6-Essentials and pyqtgraph ({e}); "
                      f"pip install PySide6-Essentials pyqtgraph, or use the compile/run commands") from None
    return gui_main(a.project, screenshot=getattr(a, "screenshot", None), workload=getattr(a, "workload", None),
                    size=getattr(a, "size", None) or "1400x900", theme=getattr(a, "theme", None),
                    repeat=getattr(a, "repeat", None))


def main(argv=None) -> int:
    return cli.main(argv, gui_main=_gui)


if __name__ == "__main__":
    sys.exit(main())
