"""`@qd.func`, and what the frontend must know of `@qd.kernel` objects.

The frontend inlines a `Func` at every call site and refuses a call to a kernel, so it needs both
types; `Kernel` itself lives in `kernel.py`, above the lowering it drives. `KernelBase` is the part
of it the frontend sees.
"""
from __future__ import annotations

import inspect
import typing
import warnings

from ..ir.errors import QuadrantsSyntaxError
from .tasks.source import SourceInfo


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


def check_annotations(fn, what: str) -> None:
    """At decoration, as Quadrants: a parameter annotated with a string that names nothing (`x: "bar"`)
    is a QuadrantsSyntaxError. Under `from __future__ import annotations` every annotation is a string,
    resolved when the kernel compiles, so this checks only strings the user wrote as strings."""
    import __future__
    if getattr(fn, "__globals__", {}).get("annotations") is __future__.annotations:
        return
    for i, (name, ann) in enumerate(getattr(fn, "__annotations__", {}).items()):
        if name == "return" or not isinstance(ann, str):
            continue
        try:
            eval(ann, dict(fn.__globals__), {})  # noqa: S307 - the user's own annotation
        except Exception:  # noqa: BLE001 - any failure: it names no type
            raise QuadrantsSyntaxError(f"Invalid type annotation (argument {i}) of Quadrants {what}: {ann} (the "
                                       f"string {ann!r} names no type here)", fn.__code__.co_filename,
                                       fn.__code__.co_firstlineno) from None


class Func:
    """A device function, inlined at every call site."""

    is_real = False  # a @qd.real_func (RealFunc)

    def __init__(self, fn, requires_top_level: bool = False):
        check_annotations(fn, "function")
        self.fn, self.name = fn, fn.__name__
        self.requires_top_level = requires_top_level  # its loops must stay top-level tasks (checked when inlined)
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

    def __get__(self, obj, objtype=None):
        """`obj.helper` of a `@qd.func` method (a `@qd.data_oriented` class's): bound to `obj`."""
        return self if obj is None else BoundFunc(self, obj)


class BoundFunc:
    """A `@qd.func` method bound to its object: inside a kernel it is inlined with the object as
    `self` (a compile-time value, as Quadrants' data-oriented `self` is); from Python it calls."""

    def __init__(self, func: Func, obj):
        self.func, self.obj = func, obj

    def __call__(self, *args, **kwargs):
        return self.func.fn(self.obj, *args, **kwargs)


class RefType:
    """`qd.ref(qd.f32)`: a @qd.real_func parameter passed by reference (the caller's variable is
    the parameter, so an assignment to it is seen by the caller)."""

    def __init__(self, tp):
        self.tp = tp

    def __repr__(self) -> str:
        return f"qd.ref({self.tp!r})"


def ref(tp) -> RefType:
    return RefType(tp)


class RealFunc(Func):
    """`@qd.real_func`: a function with its own typed frame, as Quadrants compiles it. Every
    parameter is annotated (scalars, vectors/matrices and structs pass by value, converted to their
    annotation; `qd.template()` by reference; `qd.ref(dtype)` a variable by reference), a result
    needs a return annotation, and `return` may stand anywhere, in loops too. A call is inlined,
    which gives the same results; a recursive call becomes a real call of an out-of-line function
    (frontend/real_funcs.py)."""

    is_real = True

    def __init__(self, fn):
        super().__init__(fn)
        parts = fn.__qualname__.split(".")
        in_class = len(parts) >= 2 and parts[-2] != "<locals>"  # a method: its `self` needs no annotation
        for k, p in enumerate(inspect.signature(fn).parameters.values()):
            if p.annotation is inspect.Parameter.empty and not (k == 0 and in_class):
                code = fn.__code__
                raise QuadrantsSyntaxError(f"parameter '{p.name}' of @qd.real_func '{fn.__name__}': Quadrants "
                                           "kernels parameters must be type annotated (def f(a: qd.i32))",
                                           code.co_filename, code.co_firstlineno)


def real_func(fn) -> RealFunc:
    return RealFunc(fn)


def experimental_real_func(func) -> RealFunc:
    """`qd.experimental.real_func`: the old name, with Quadrants' deprecation warning."""
    warnings.warn("qd.experimental.real_func is deprecated because it is no longer experimental. "
                  "Use qd.real_func instead.", DeprecationWarning, stacklevel=2)
    return RealFunc(func)


def data_oriented(cls=None, *, stable_members: bool = False, template_primitives: bool = True):
    """`@qd.data_oriented`: a class whose `@qd.kernel` and `@qd.func` methods take the object as
    `self`, a compile-time value whose fields (and ndarrays) kernels reach as `self.x`. The methods
    bind themselves (`Kernel.__get__`, `Func.__get__`); this marks the class, as Quadrants does.
    `@qd.data_oriented(template_primitives=False)` is accepted with the same results: Quadrants
    passes the primitives as runtime arguments, here a changed value compiles a new specialisation
    (template.held_arrays keys on the values), so a launch always sees the current value.
    `stable_members=True` (Quadrants' promise that members are not reassigned, for its launch cache)
    changes no result and is accepted."""
    def mark(c):
        c._qd_data_oriented = True
        c._qd_runtime_primitives = not template_primitives
        return c
    return mark if cls is None else mark(cls)


def func(fn=None, *, is_real_function: bool = False, requires_top_level: bool = False):
    """`@qd.func` or `@qd.func(requires_top_level=True)`: a call nested in a runtime for/while/if,
    directly or through other funcs, is then a QuadrantsSyntaxError, as in Quadrants.
    `@qd.func(is_real_function=True)` is `@qd.real_func`, as there."""
    if is_real_function:
        return RealFunc if fn is None else RealFunc(fn)
    if fn is None:
        return lambda f: Func(f, requires_top_level)
    return Func(fn, requires_top_level)


class KernelBase:
    """A `@qd.kernel` as the frontend sees it: a name, and that it cannot be called from a kernel."""

    name: str
