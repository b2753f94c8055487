"""Debug mode, host side: read a launch's out-of-bounds record and say where it happened.

The generated code (codegen/debug_checks.py) writes the first failing access of a launch into a
4 x i64 record: site + 1, index, extent, axis. Both backends hand the record to the entry as its
last argument, read it back after the launch and raise `OutOfBounds` naming the kernel, the
task, the access's file:line, the index and the array's shape.
"""
from __future__ import annotations

import numpy as np

from ..ir.errors import QuadrantsAssertionError

RECORD_WORDS = 4


class OutOfBounds(QuadrantsAssertionError):
    """An ndarray access outside its array, caught by debug mode. Quadrants raises its
    `QuadrantsAssertionError` (an AssertionError) for this, so `except AssertionError` catches both."""


def new_record() -> np.ndarray:
    return np.zeros(RECORD_WORDS, np.int64)


def check_record(rec, spec, shapes: dict):
    """Raise OutOfBounds if `rec` holds a failed access; `shapes` maps array names to shapes."""
    site = int(rec[0])
    if site == 0:
        return
    where, array = spec.debug_sites[site - 1] if site - 1 < len(spec.debug_sites) else ("?", "?")
    index, extent, axis = int(rec[1]), int(rec[2]), int(rec[3])
    shape = tuple(shapes.get(array, ()))
    raise OutOfBounds(f"Out of bound access (out-of-bounds access in kernel {spec.kernel}, task {spec.task}), at "
                      f"{where or '?'}: "
                      f"{array} index {index} on axis {axis}, but {array} has shape {shape or (extent,)} "
                      f"(axis {axis} has {extent} elements)")
