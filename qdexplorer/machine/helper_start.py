"""How helper processes (compile-pool workers, the device worker) are started: forked from one server.

A spawned helper is a fresh interpreter that imports qdexplorer, llvmlite and NumPy itself, about
0.35 s of CPU each time: paid by every compile pool and device worker an engine starts, by each
worker the pool replaces, and twice over by each short-lived process (the CLI, each test). Where the
platform has it (Linux, macOS), `multiprocessing`'s forkserver imports them once in a server of its
own and forks each helper from it. The server is itself a fresh interpreter that never touched a GPU
or a thread of the app, so a forked helper may still create its CUDA context; it ends when the
process that started it does. Elsewhere (Windows), and in the frozen app (whose start-up answers
spawn's `freeze_support` hand-off, packaging/qdexplorer_app.py, and was never tried with a forkserver),
spawn, as before.

A forked helper starts with the server's environment, which is that of when the server started, so
each helper adopts its starter's environment as it is now (`helper_started`), as a spawned one would
have inherited it (ptxas, libdevice, CUDA_VISIBLE_DEVICES and the dump folders are read from it).
"""
from __future__ import annotations

import multiprocessing as mp
import os
import sys
from typing import TYPE_CHECKING

from .orphan_guard import die_with_parent

if TYPE_CHECKING:   # ForkServerContext is not defined where there is no forkserver (Windows)
    from multiprocessing.context import ForkServerContext, SpawnContext

# what every helper imports, imported once by the server (names only: nothing of this is imported here)
PRELOAD = ["qdexplorer.compiler.stages", "qdexplorer.machine.llvm_binding", "qdexplorer.runtime.worker"]


def helper_context() -> ForkServerContext | SpawnContext:
    if "forkserver" not in mp.get_all_start_methods() or getattr(sys, "frozen", False):
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    return ctx


def helper_started(env: dict[str, str] | None) -> None:
    """First thing in a helper: its starter's environment (given as it was at the start), then the
    watch that ends the helper with its starter (orphan_guard)."""
    if env is not None and env != os.environ:
        os.environ.clear()
        os.environ.update(env)
    die_with_parent()
