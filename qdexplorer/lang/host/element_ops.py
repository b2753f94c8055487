"""The operators of `x[i]` (host/element.py) and of any object with a `to_numpy()` value: they
act on that value, as Quadrants' Vector/Matrix operators do on a Python-scope element.

Comparisons give an `ElementComparison`, a NumPy bool array whose truth is "all equal", so both
`assert x[i] == [1, 2]` and `(x[i] == [1, 2]).all()` read as in Quadrants; arithmetic gives a
Python-scope `qd.Vector` / `qd.Matrix` (host_matrix.host), never a view that writes back.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .host_matrix import host as _host


class ElementComparison(np.ndarray):
    """The componentwise result of `x[i] == v`; `bool()` of it is True when every component is."""

    def __bool__(self) -> bool:
        return bool(np.all(np.asarray(self)))


class ValueOperators:
    """Mixin: comparisons and arithmetic on `self.to_numpy()`, which the class provides (declared
    here for the type checker)."""

    __slots__ = ()

    if TYPE_CHECKING:
        def to_numpy(self) -> np.ndarray: ...

    def __eq__(self, other):
        return (self.to_numpy() == np.asarray(other)).view(ElementComparison)

    def __ne__(self, other):
        return (self.to_numpy() != np.asarray(other)).view(ElementComparison)

    def __lt__(self, other):
        return (self.to_numpy() < np.asarray(other)).view(ElementComparison)

    def __le__(self, other):
        return (self.to_numpy() <= np.asarray(other)).view(ElementComparison)

    def __gt__(self, other):
        return (self.to_numpy() > np.asarray(other)).view(ElementComparison)

    def __ge__(self, other):
        return (self.to_numpy() >= np.asarray(other)).view(ElementComparison)

    def __neg__(self):
        return _host(-self.to_numpy())

    def __abs__(self):
        return _host(abs(self.to_numpy()))

    def __add__(self, o):
        return _host(self.to_numpy() + np.asarray(o))

    def __radd__(self, o):
        return _host(np.asarray(o) + self.to_numpy())

    def __sub__(self, o):
        return _host(self.to_numpy() - np.asarray(o))

    def __rsub__(self, o):
        return _host(np.asarray(o) - self.to_numpy())

    def __mul__(self, o):
        return _host(self.to_numpy() * np.asarray(o))

    def __rmul__(self, o):
        return _host(np.asarray(o) * self.to_numpy())

    def __truediv__(self, o):
        return _host(self.to_numpy() / np.asarray(o))

    def __rtruediv__(self, o):
        return _host(np.asarray(o) / self.to_numpy())

    def __floordiv__(self, o):
        return _host(self.to_numpy() // np.asarray(o))

    def __rfloordiv__(self, o):
        return _host(np.asarray(o) // self.to_numpy())

    def __mod__(self, o):
        return _host(self.to_numpy() % np.asarray(o))

    def __rmod__(self, o):
        return _host(np.asarray(o) % self.to_numpy())

    def __pow__(self, o):
        return _host(self.to_numpy() ** np.asarray(o))

    def __rpow__(self, o):
        return _host(np.asarray(o) ** self.to_numpy())

    def __matmul__(self, o):
        return _host(self.to_numpy() @ np.asarray(o))

    def __rmatmul__(self, o):
        return _host(np.asarray(o) @ self.to_numpy())

