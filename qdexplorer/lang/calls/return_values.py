"""Kernel results that are structs or tuples (`-> s`, `-> tuple[qd.f32, s]`, `-> (qd.f32, s)`).

A scalar or vector result is one implicit `ret__` array. A struct or tuple result is flattened into
its leaves (scalars and vectors/matrices, members in declaration order, nested structs and tuples
walked through), one implicit `ret__<k>` array each in the leaf's own dtype, so no value goes
through another type; the caller rebuilds the struct (`qd.Struct` of that type) or tuple from them.
"""
from __future__ import annotations

import math
import re
import typing

import numpy as np

from ..struct_types import Struct, StructType
from ...ir.dtypes import DType, as_dtype, f32
from ..vector_types import VectorType
from ..host.host_matrix import host as python_scope_matrix

_LEAF_NAME = re.compile(r"ret__(\d+)(?:_\d+)?$")


def tuple_items(ann) -> tuple | None:
    """The element types of a tuple annotation (`(a, b)`, `tuple[a, b]`, `typing.Tuple[a, b]`), else None."""
    if isinstance(ann, tuple):
        return ann
    if typing.get_origin(ann) is tuple:
        return typing.get_args(ann)
    return None


def is_compound(ann) -> bool:
    return isinstance(ann, StructType) or tuple_items(ann) is not None


def leaves(ann) -> list[tuple[DType, tuple]] | None:
    """(dtype, array shape) of each leaf of a struct/tuple result in order; None for another result.
    Raises TypeError naming a leaf type that is not a qd scalar, vector, matrix or struct."""
    if not is_compound(ann):
        return None
    out: list[tuple[DType, tuple]] = []

    def walk(t):
        items = tuple_items(t)
        if isinstance(t, StructType):
            for m in t.members.values():
                walk(m)
        elif items is not None:
            for x in items:
                walk(x)
        elif isinstance(t, VectorType):
            out.append((t.dtype or f32, (math.prod(t.shape),)))
        else:
            dt = as_dtype(t)
            if dt is None:
                raise TypeError(f"{t!r} in a kernel's result: a result is made of qd scalars, vectors, matrices, "
                                f"structs and tuples of them")
            out.append((dt, (1,)))

    walk(ann)
    return out


def rebuild(ann, args: dict):
    """The Python value of a struct/tuple result from its `ret__<k>` arrays in `args`."""
    numbered = []
    for n, v in args.items():
        m = _LEAF_NAME.match(n)
        if m:
            numbered.append((int(m.group(1)), v))
    arrays = [a for _, a in sorted(numbered, key=lambda p: p[0])]
    it = iter(arrays)

    def build(t):
        items = tuple_items(t)
        if isinstance(t, StructType):
            return Struct({k: build(m) for k, m in t.members.items()}, stype=t)
        if items is not None:
            return tuple(build(x) for x in items)
        a = np.asarray(next(it))
        if isinstance(t, VectorType):
            return python_scope_matrix(a.reshape(t.shape).copy())
        x = a[0].item()
        return int(x) if isinstance(x, bool) else x

    return build(ann)
