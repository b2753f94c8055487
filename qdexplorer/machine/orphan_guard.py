"""Helper processes (compile-pool workers, the device worker) die with the process that started them.

A SIGKILLed app cannot clean up, and an orphaned worker can hold 130 MB or spin a core for good.
Each helper starts a daemon thread that waits on `multiprocessing`'s parent sentinel (a pipe end
that becomes readable when the parent is gone, on every OS) and then exits at once. This beats
`PR_SET_PDEATHSIG`, which fires when the parent *thread* that spawned the helper ends (the GUI
compiles from a background thread), and is Linux-only.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import threading
from multiprocessing.connection import wait

EXIT_ORPHANED = 70


def die_with_parent() -> bool:
    """Start the watch in this (spawned) process; False where there is no multiprocessing parent."""
    parent = mp.parent_process()
    sentinel = getattr(parent, "sentinel", None)
    if sentinel is None:
        return False

    def watch():
        wait([sentinel])
        os._exit(EXIT_ORPHANED)  # no cleanup handlers: the parent that wanted the results is gone

    threading.Thread(target=watch, name="qdexplorer-parent-watch", daemon=True).start()
    return True
