"""`@qd.func`, and what the frontend must know of `@qd.kernel` objects.

The frontend inlines a `Func` at every call site and refuses a call to a kernel, so it needs both
types; `Kernel` itself lives in `kernel.py`, above the lowering it drives. `KernelBase` is the part
of it the frontend sees.
"""
from __future__ import annotations

import typing

from .source import SourceInfo


def read_annotations(fn) -> dict:
    """`fn`'s resolved annotations; the raw (possibly string) ones where they do not resolve.
    `-> None` declares no result, so it is left out (`get_type_hints` would give `NoneType`)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - fall back to raw (possibly string) annotations
        hints = dict(getattr(fn, "__annotations__", {}))
    if "return" in hints and hints["return"] in (None, type(None), "None"):
        del hints["return"]
    return hints


class Func:
    """A device function, inlined at every call site."""

    def __init__(self, fn):
        self.fn, self.name = fn, fn.__name__
        self._source: SourceInfo | None = None
        self.__wrapped__ = fn
        self.__doc__ = fn.__doc__

    @property
    def source(self) -> SourceInfo:
        if self._source is None:
            self._source = SourceInfo(self.fn)
        return self._source

    @property
    def annotations(self) -> dict:
        return read_annotations(self.fn)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def func(fn) -> Func:
    return Func(fn)


class KernelBase:
    """A `@qd.kernel` as the frontend sees it: a name, and that it cannot be called from a kernel."""

    name: str
