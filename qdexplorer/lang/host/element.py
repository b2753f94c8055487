"""`x[i]` of a vector or matrix field / ndarray, from Python: a view that reads and writes the array.

Quadrants returns a Vector/Matrix bound to the array, so `x[i][j] = v` and `x[i][j, k] = v` write
through. A NumPy copy would silently drop such writes (upstream's `copy_from` test read zeros
because of it), so `x[i]` is an `Element`: every read goes through the owner's `host()` (which
copies back from the device if a kernel wrote it last) and every write ends with the owner's
`residency.host_written()` (so the next kernel call uploads it). Its comparisons and arithmetic
are those of its value (element_ops.py).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import host_matrix as H
from .element_ops import ElementComparison, ValueOperators

__all__ = ["Element", "ElementComparison"]


class Element(ValueOperators):
    """One vector/matrix element `owner[index]` of a field or ndarray, bound to the owner's storage."""

    __slots__ = ("_index", "_owner")

    def __init__(self, owner, index: tuple):
        self._owner, self._index = owner, tuple(index)

    # ---- what it is
    @property
    def shape(self) -> tuple:
        return tuple(self._owner.elem_shape)

    @property
    def n(self) -> int:
        return self.shape[0]

    @property
    def m(self) -> int:
        return self.shape[1] if len(self.shape) > 1 else 1

    @property
    def dtype(self):
        return self._owner.dtype

    def to_numpy(self) -> np.ndarray:
        """A copy of the element's components."""
        return np.array(self._owner.host()[self._index])

    def __array__(self, dtype=None, copy=None):
        a = self.to_numpy()
        return a.astype(dtype) if dtype is not None else a

    def tolist(self) -> list:
        return self.to_numpy().tolist()

    def __repr__(self) -> str:
        return repr(self.to_numpy())

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return iter(self.tolist())

    # ---- components
    def _key(self, key) -> tuple:
        key = key if isinstance(key, tuple) else (key,)
        if len(key) != len(self.shape) or not all(isinstance(k, (int, np.integer)) for k in key):
            want = "v[j]" if len(self.shape) == 1 else "m[j, k]"
            raise IndexError(f"a {'x'.join(map(str, self.shape))} element takes {len(self.shape)} integer "
                             f"index(es) ({want}), got {key!r}")
        for k, n in zip(key, self.shape):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of range for an element of shape {self.shape}")
        return tuple(int(k) for k in key)

    def __getitem__(self, key):
        return self._owner.host()[self._index + self._key(key)].item()

    def __setitem__(self, key, value):
        self._owner.host()[self._index + self._key(key)] = value
        self._owner.residency.host_written()

    # ---- swizzles (`x[i].x = 5`, `x[i].xy`) and Quadrants' Matrix methods (`x[i].norm()`)
    def __getattr__(self, name: str):
        idx = H.swizzle_index(name) if not name.startswith("_") else None
        if idx is not None and len(self.shape) == 1:
            v = H.host(self.to_numpy())
            return getattr(v, name)
        if name in H.METHODS:
            fn: Any = H.METHODS[name]
            return lambda *a, **k: fn(H.host(self.to_numpy()), *a, **k) if name != "fill" else self._fill(*a)
        raise AttributeError(f"'Element' object has no attribute '{name}'")

    def __setattr__(self, name: str, value):
        idx = H.swizzle_index(name) if not name.startswith("_") else None
        if idx is None or len(self.shape) != 1:
            object.__setattr__(self, name, value)
            return
        if max(idx) >= self.shape[0]:
            raise AttributeError(f"'.{name}' needs a vector of at least {max(idx) + 1} components")
        vals = np.broadcast_to(np.asarray(value), (len(idx),))
        for k, v in zip(idx, vals):
            self._owner.host()[self._index + (k,)] = v
        self._owner.residency.host_written()

    def _fill(self, value):
        self._owner.host()[self._index] = value
        self._owner.residency.host_written()
