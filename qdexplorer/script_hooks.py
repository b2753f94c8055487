"""Where the language finds the layer that compiles and launches its kernels for plain scripts.

The language sits below the engine and never imports it; the package root puts the script layer's
entry points here (each imports `qdexplorer.script` on first use). Keeping them in this leaf module,
not in the language, lets the package root wire them without importing the language, so loading the
compiler (`import qdexplorer.codegen`) does not load `qdexplorer.lang`.
"""
from __future__ import annotations

HOOKS: dict = {"init": None, "call": None, "reset": None, "adopt": None, "sync": None}


def install(init, call, reset, adopt=None, sync=None) -> None:
    HOOKS.update(init=init, call=call, reset=reset, adopt=adopt, sync=sync)
