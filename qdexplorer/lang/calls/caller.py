"""Where the user's code called into this package from, for errors raised deep inside it."""
from __future__ import annotations

import os
import sys
from types import FrameType

# the language and the IR floor below it (the move into lang/calls left this at lang/calls alone, and
# errors raised from kernel.py or field.py named those files instead of the user's line)
_LANG = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HERE = (_LANG + os.sep, os.path.join(os.path.dirname(_LANG), "ir") + os.sep)


def caller() -> tuple:
    """(file, line) of the user code that called into this package (the first frame outside it)."""
    f: FrameType | None = sys._getframe(1)
    while f is not None and f.f_code.co_filename.startswith(_HERE):
        f = f.f_back
    return (f.f_code.co_filename, f.f_lineno) if f is not None else ("<unknown>", 0)
