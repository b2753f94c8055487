"""Where the user's code called into this package from, for errors raised deep inside it."""
from __future__ import annotations

import os
import sys
from types import FrameType

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # qdexplorer/lang, above this wing


def caller() -> tuple:
    """(file, line) of the user code that called into this package (the first frame outside it)."""
    f: FrameType | None = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_HERE):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else ("<unknown>", 0)
