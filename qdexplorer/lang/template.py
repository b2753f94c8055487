"""`qd.template()` kernel arguments: compile-time values, fields and arrays.

A template argument specialises the kernel per distinct value, as in Quadrants. Fields and arrays
are the exception: their storage is passed to the tasks at run time, so they specialise on dtype and
ndim only and two fields of one type share compiled code. A specialisation's tasks carry the
values in their names, so they stay distinct in the task tree.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import re
import weakref

import numpy as np

from .calls import runtime_api
from ..ir.device_array import DeviceArray
from .field import Storage, nested_out_of_order
from ..ir.dtypes import from_numpy


class Template:
    """The annotation `qd.template()`; Quadrants' `element_type` and `ndim` are kept (as there, they
    document the argument and check nothing)."""

    def __init__(self, element_type=object, ndim=None):
        self.element_type, self.ndim = element_type, ndim

    def __repr__(self) -> str:
        return "qd.template()"


def template(element_type=object, ndim=None) -> Template:
    return Template(element_type, ndim)


class _ById:
    """A compile-time value keyed by identity: an unhashable one (a list), or an object that holds
    arrays (a `@qd.data_oriented` or dataclass instance), then also by which arrays it holds now
    (`contents`), since kernels bake them in: reassigning `self.x` specialises anew, as Quadrants
    re-reads the attribute."""

    def __init__(self, value, contents: tuple = ()):
        self.value, self.contents = value, contents

    def __eq__(self, other):
        return isinstance(other, _ById) and other.value is self.value and other.contents == self.contents

    def __hash__(self):
        return hash((id(self.value), self.contents))

    def __repr__(self):
        held = f" holding {hashlib.sha1(repr(self.contents).encode()).hexdigest()[:6]}" if self.contents else ""
        return f"<{type(self.value).__name__} at {id(self.value):#x}{held}>"


def holds_arrays(v) -> bool:
    return getattr(type(v), "_qd_data_oriented", False) or dataclasses.is_dataclass(v) and not isinstance(v, type)


def held_arrays(v, depth: int = 0, runtime: bool = False) -> tuple:
    """(attribute, array uid or nested contents) for the arrays an object holds, a few levels deep,
    and, under `@qd.data_oriented(template_primitives=False)` (`runtime`), its primitive members'
    values: Quadrants reads those at every launch, so a changed value specialises anew here (by
    default Quadrants bakes them per object, and so does this key)."""
    runtime = runtime or getattr(type(v), "_qd_runtime_primitives", False)
    if depth > 8:
        return ()
    attrs = vars(v) if hasattr(v, "__dict__") else {}
    out: list[tuple[str, object]] = []
    for k, a in attrs.items():
        if isinstance(a, Storage):
            out.append((k, a.uid))
        elif holds_arrays(a):
            out.append((k, held_arrays(a, depth + 1, runtime)))
        elif hasattr(a, "members") and hasattr(a, "struct_type"):  # a struct field: its member arrays
            out.append((k, tuple(sorted((m, getattr(f, "uid", None)) for m, f in a.members.items()))))
        elif runtime and isinstance(a, (bool, int, float, enum.Enum)):
            _check_lifted_kind(v, k, a)
            out.append((k, (type(a).__name__, a)))
    return tuple(out)


_LIFTED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # object -> {member: first kind}


def _check_lifted_kind(obj, name: str, value) -> None:
    """Quadrants lifts a `template_primitives=False` member as a kernel argument of the type it had at
    the first launch; a float given later to an integer member would truncate, so it is refused (a
    TypeError, as Quadrants', even for 4.0), while the lossless direction (int to a float member) is taken."""
    try:
        kinds = _LIFTED.setdefault(obj, {})
    except TypeError:  # an object that takes no weak references: nothing to remember it by
        return
    kind = "float" if isinstance(value, float) else "int" if isinstance(value, (bool, int)) else None
    first = kinds.setdefault(name, kind)
    if first == "int" and kind == "float":
        raise TypeError(f"Primitive member '{name}' of a @qd.data_oriented(template_primitives=False) object "
                        f"({type(obj).__name__}) was lifted as an integer kernel argument (its type at the first "
                        f"launch), but is now a float ({value!r}); coercing it would truncate. Keep the member's "
                        f"type stable across launches")


ALIAS_KEY = "__alias__"  # the spec entry naming template parameters given the same array (kernel.py)


def template_spec(name: str, v) -> tuple:
    """The spec entry of one template argument's value."""
    if getattr(v, "sparse", False) is True:
        # a field under a pointer/bitmasked/dynamic container specialises on the field itself: the kernel
        # needs its SNode tree (a struct-for visits its active cells only, a write activates), which a
        # pointer to its data does not carry. Passed by shape alone, `for i, j in x` visited every cell of
        # inactive blocks too (a game of life grew into them)
        return (name, "static", _ById(v), 0)
    if nested_out_of_order(v):
        # a field nested out of axis order (snode.py): the kernel indexes it in its memory order, which
        # a pointer and a shape do not carry; it is taken as the field itself, as a global is
        return (name, "static", _ById(v), 0)
    if isinstance(v, Storage):  # a field with offset= also specialises on its offset (6th entry), a
        el, off, q = tuple(v.elem_shape), tuple(v.offset), getattr(v, "quant", None)  # quantized one on its type
        if q is not None:
            return (name, "array", v.dtype, v.storage.ndim, el, off, q)
        return (name, "array", v.dtype, v.storage.ndim) + ((el, off) if off else (el,) if el else ())
    if isinstance(v, (np.ndarray, DeviceArray)):
        el = tuple(getattr(v, "elem_shape", ()))
        return (name, "array", from_numpy(v.dtype), v.ndim) + ((el,) if el else ())
    if isinstance(v, float) and runtime_api.init_options().get("raise_on_templated_floats"):
        raise ValueError(f"Floats not allowed as templated types: template argument '{name}' is {v!r} "
                         f"(qd.init(raise_on_templated_floats=True)); annotate it qd.f32 to pass it by value")
    if isinstance(v, np.generic):
        v = v.item()
    if holds_arrays(v):
        return (name, "static", _ById(v, held_arrays(v)), 0)
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
        if isinstance(value, _ById) and isinstance(value.value, Storage):
            text += f" uid {value.value.uid}"   # two fields of one shape are two specialisations (a sparse
            # field given as a template); the uid, not the address, keeps the name stable run to run
        if isinstance(value, (bool, int, float, str)) and len(str(value)) <= 12:
            parts.append(f"{name}{re.sub(r'[^0-9A-Za-z]', '_', str(value))}")
        else:
            parts.append(f"{name}{hashlib.sha1(text.encode()).hexdigest()[:6]}")
    return "_".join(parts)
