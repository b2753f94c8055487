"""Compile-time evaluation: `qd.static(...)`, shapes and dtypes evaluated in Python, with the kernel's
locals seen as what is known of them while compiling.

A compile-time expression sees Python values as themselves, a vector as its shape, an array argument
as a stand-in (`ArrayStandIn`: that it is there, its dtype and axes); `offload.py` gives the same
stand-ins to a kernel's top-level `qd.static` tests.
"""
from __future__ import annotations

import ast

from .... import ir
from ....ir.errors import QdCompileError
from ...tasks.source import flat_env
from ..values import Py, Seq, Vec
from .names import NameResolution


class CompileTimeEvaluation(NameResolution):
    """Evaluates an expression in Python, in an environment of the frame's globals and its locals'
    compile-time views."""

    def eval_static(self, node):
        """Evaluate an expression in Python at compile time (qd.static, shapes, dtypes)."""
        env = flat_env(self.frame.env)
        local_names = {k for scope in self.frame.scopes for k in scope}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id not in local_names and n.id in env:
                self.check_global_float(n.id, env[n.id], n)
        for scope in self.frame.scopes:
            for k, v in scope.items():
                seen = _static_view(v)
                if isinstance(v, ir.ArrayArg):  # an array: the field itself where there is one (x.shape works)
                    seen = self.kscope.field_objs.get(v.name, v)
                if seen is not _UNKNOWN:
                    env[k] = seen
                elif k in env:
                    del env[k]
        try:
            return eval(compile(ast.Expression(node), "<qd.static>", "eval"), env)  # noqa: S307
        except NameError as e:
            self.err(node, f"{e}: values in qd.static(...) and other compile-time expressions must be compile-time "
                           f"constants (constants, globals, qd.static values and qd.template() arguments)")
        except QdCompileError as e:  # Quadrants' own error (qd.ndrange's checks): its class, at the user's line
            self.err(node, e.message, type(e))
        except Exception as e:  # noqa: BLE001 - reported at the user's line
            self.err(node, f"could not evaluate at compile time: {type(e).__name__}: {e}")


class VecShape:
    """What compile-time code sees of a kernel vector or matrix: its shape (`v.n`, `v.m`,
    `v.shape`, `len(v)`), and its components only when they are compile-time constants (a
    `qd.static(qd.grouped(...))` index); other values exist only when the kernel runs."""

    def __init__(self, shape: tuple, values: tuple | None = None):
        self.shape = tuple(shape)
        self.n = shape[0]
        self.m = shape[1] if len(shape) > 1 else 1
        self.values = values

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k):
        if self.values is None:
            raise TypeError("this vector's components are only known when the kernel runs")
        if isinstance(k, tuple):
            return self.values[k[0] * self.m + k[1]]
        return self.values[k]

    def get_shape(self) -> tuple:
        return self.shape


_UNKNOWN = object()


def _static_view(v):
    """What compile-time code sees of a kernel value: a Python value as itself, a vector as its
    shape (`qd.static(range(m.n))`), a list of kernel values as a list of those (`len(w)`)."""
    if isinstance(v, Py):
        return v.value
    if isinstance(v, Vec):
        known = all(isinstance(x, Py) for x in v.items)
        return VecShape(v.shape, tuple(x.value for x in v.items) if known else None)
    if isinstance(v, Seq):
        return [None if (x := _static_view(item)) is _UNKNOWN else x for item in v.items]
    if isinstance(v, ir.ArrayArg):  # `qd.static(x is not None)` on an array argument: it is one
        return ArrayStandIn(v.name, v.dtype, v.ndim)
    return _UNKNOWN


class ArrayStandIn:
    """What compile-time code sees of an array argument: that it is there (not None), its dtype and
    number of storage axes; its data and run-time shape are not known while compiling."""

    def __init__(self, name: str, dtype, ndim: int):
        self.name, self.dtype, self.ndim = name, dtype, ndim

    def __repr__(self) -> str:
        return f"<array argument {self.name}: {self.dtype!r}, {self.ndim} axes>"
