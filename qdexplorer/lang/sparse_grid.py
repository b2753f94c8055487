"""`qd.sparse`: a 2-D/3-D grid of structs on a bitmasked container, and how much of it is active."""
from __future__ import annotations

import numpy as np

from .snode import axes, root
from .struct_types import Struct


def grid(field_dict: dict, shape):
    """`qd.sparse.grid({'pos': qd.math.vec2, 'mass': qd.f32}, shape=(10, 10))`: a struct field placed
    on `qd.root.bitmasked(...)`, as Quadrants builds it."""
    shape = tuple(shape)
    if len(shape) not in (2, 3):
        raise ValueError("Only 2D and 3D sparse grids are supported")
    x = Struct.field(field_dict)
    root.bitmasked(axes(*range(len(shape))), shape).place(x)
    return x


def usage(x) -> float:
    """The active fraction of the grid's cells, in [0, 1] (a float32, as Quadrants' kernel returns)."""
    active = x.parent().active_cells()
    return float(np.float32(active.sum()) / np.float32(active.size))


from .compat import surface as _compat  # noqa: E402

__getattr__ = _compat.module_getattr("qd.sparse", "qdexplorer.lang.sparse_grid")
