"""`qd.template()` kernel arguments: compile-time values, fields and arrays.

A template argument specialises the kernel per distinct value, as in Quadrants. Fields and arrays
are the exception: their storage is passed to the tasks at run time, so they specialise on dtype and
ndim only and two fields of one type share compiled code. A specialisation's tasks carry the
values in their names, so they stay distinct in the task tree.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from .device_array import DeviceArray
from .field import _Storage
from .types import from_numpy


class Template:
    """The annotation `qd.template()`."""

    def __repr__(self) -> str:
        return "qd.template()"


def template() -> Template:
    return Template()


class _ById:
    """An unhashable compile-time value (a list, an object), keyed by identity."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _ById) and other.value is self.value

    def __hash__(self):
        return id(self.value)

    def __repr__(self):
        return f"<{type(self.value).__name__} at {id(self.value):#x}>"


def template_spec(name: str, v) -> tuple:
    """The spec entry of one template argument's value."""
    if isinstance(v, _Storage):
        el = tuple(v.elem_shape)
        return (name, "array", v.dtype, v.storage.ndim) + ((el,) if el else ())
    if isinstance(v, (np.ndarray, DeviceArray)):
        el = tuple(getattr(v, "elem_shape", ()))
        return (name, "array", from_numpy(v.dtype), v.ndim) + ((el,) if el else ())
    if isinstance(v, np.generic):
        v = v.item()
    try:
        hash(v)
    except TypeError:
        v = _ById(v)
    return (name, "static", v, 0)


def static_value(key):
    """The Python value a static spec entry stands for (an unhashable one is kept by identity)."""
    return key.value if isinstance(key, _ById) else key


def specialisation_tag(spec: tuple) -> str:
    """A short, stable, identifier-safe name for a kernel's static template values ('' if none)."""
    parts = []
    for name, kind, value, *_ in spec:
        if kind != "static":
            continue
        text = repr(value.value if isinstance(value, _ById) else value)
        if isinstance(value, (bool, int, float, str)) and len(str(value)) <= 12:
            parts.append(f"{name}{re.sub(r'[^0-9A-Za-z]', '_', str(value))}")
        else:
            parts.append(f"{name}{hashlib.sha1(text.encode()).hexdigest()[:6]}")
    return "_".join(parts)
