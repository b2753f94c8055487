"""`qd.lang`: Quadrants re-exports its language under `quadrants.lang` as well (`qd.lang.Field`,
`from quadrants.lang import ...`); here that namespace is the top level itself."""
from __future__ import annotations

import sys
import types

from . import surface as compat
from .module_paths import quadrants_module  # Quadrants' submodules, read without an import


class LangNamespace(types.ModuleType):
    """A module whose names are `qdexplorer.lang`'s; refusals name `qd.lang.X`."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        top = sys.modules["qdexplorer.lang"]
        if name in vars(top):
            return vars(top)[name]
        if name in ("ops", "util", "exception"):  # `qd.lang.ops.add(a, b)`, `qd.lang.util.to_numpy_type(dt)`:
            return quadrants_module(f"quadrants.lang.{name}")
        for key in (f"qd.lang.{name}", f"qd.{name}"):
            if key in compat.REFUSED:
                raise compat.refuse(key)
        raise compat.unknown(f"qd.lang.{name}")

    def __dir__(self):
        return [n for n in dir(sys.modules["qdexplorer.lang"]) if not n.startswith("_")]


lang = LangNamespace("qdexplorer.lang.lang", __doc__)
