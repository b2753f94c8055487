"""Python-scope vectors and matrices: `qd.Vector([1, 2, 3])`, `qd.Matrix([[1, 2], [3, 4]])` outside kernels.

Quadrants gives these a Matrix class with its own methods (`v.norm()`, `v.normalized()`, `m.inverse()`,
swizzles `v.xy`, `v.x = 1`); here they are NumPy arrays of a subclass carrying the same methods, so
NumPy code and helpers that take arrays keep working. The methods are plain functions, also set on the
`qd.Vector` / `qd.Matrix` classes, so `qd.Vector.normalized(v, 1e-6)` works on any array, as it does in
Quadrants; kernels lower the same calls (frontend/calls.py looks them up in `METHODS`).
"""
from __future__ import annotations

import numpy as np

from .types import as_dtype

SWIZZLE = {c: k for group in ("xyzw", "rgba", "stpq") for k, c in enumerate(group)}


def _swizzle_index(name: str):
    if 1 <= len(name) <= 4 and all(c in SWIZZLE for c in name) and len({SWIZZLE.get(c) is not None for c in name}) == 1:
        for group in ("xyzw", "rgba", "stpq"):
            if all(c in group for c in name):
                return [SWIZZLE[c] for c in name]
    return None


class HostMatrix(np.ndarray):
    """A vector (1-d) or matrix (2-d) in Python scope: a NumPy array with Quadrants' Matrix methods."""

    def __getattr__(self, name: str):
        idx = _swizzle_index(name) if not name.startswith("_") else None
        if idx is not None and self.ndim == 1:
            if max(idx) >= self.shape[0]:
                raise AttributeError(f"'.{name}' needs a vector of at least {max(idx) + 1} components")
            return self[idx[0]].item() if len(idx) == 1 else np.asarray(self)[idx].view(HostMatrix)
        if name.startswith("__"):
            raise AttributeError(name)
        from . import compat
        compat.refuse_attr("vector" if self.ndim == 1 else "matrix", self, name)

    def __setattr__(self, name: str, value):
        idx = _swizzle_index(name) if not name.startswith("_") else None
        if idx is not None and self.ndim == 1:
            n = self.shape[0]
            if max(idx) >= n:
                from .errors import QuadrantsSyntaxError
                group = next(g for g in ("xyzw", "rgba", "stpq") if name[0] in g)
                raise QuadrantsSyntaxError(f"vec{n} only has attributes={tuple(group[:n])}, got={tuple(name)}")
            if len(idx) > 1 and np.size(value) != len(idx):
                from .errors import QuadrantsRuntimeError
                raise QuadrantsRuntimeError(f"value len does not match the swizzle pattern={name}")
            np.asarray(self)[idx] = value
            return
        super().__setattr__(name, value)

    @property
    def n(self) -> int:
        return self.shape[0]

    @property
    def m(self) -> int:
        return self.shape[1] if self.ndim > 1 else 1

    @property
    def entries(self) -> np.ndarray:
        """The components, row by row, as a NumPy array of the matrix's dtype (Quadrants' `m.entries`)."""
        return np.array(self).ravel()

    def __bool__(self) -> bool:  # `if a == b:` on vectors: all components, as Quadrants' python scope
        return bool(np.all(np.asarray(self)))


def host(a) -> np.ndarray:
    """`a` as a HostMatrix when it is a vector or matrix; other shapes stay plain arrays."""
    arr = np.asarray(a)
    return arr.view(HostMatrix) if arr.ndim in (1, 2) else arr


# ---- the methods (plain functions: `qd.Vector.norm(v)` and `v.norm()` are the same call)
def norm_sqr(self):
    a = np.asarray(self)
    return (a * a).sum().item()


def norm(self, eps=0):
    return float(np.sqrt(norm_sqr(self) + eps))


def norm_inv(self, eps=0):
    return float(1.0 / np.sqrt(norm_sqr(self) + eps))


def normalized(self, eps=0):
    a = np.asarray(self)
    r = host(a * (1.0 / (np.sqrt(norm_sqr(a)) + eps)))
    return r.astype(a.dtype) if a.dtype.kind == "f" else r  # an integer vector normalizes to floats


def dot(self, other):
    return (np.asarray(self) * np.asarray(other)).sum().item()


def cross(self, other):
    a, b = np.asarray(self), np.asarray(other)
    return np.cross(a, b).item() if a.shape == (2,) else host(np.cross(a, b))


def outer_product(self, other):
    return host(np.outer(np.asarray(self), np.asarray(other)))


def frobenius_inner(self, other):
    return (np.asarray(self) * np.asarray(other)).sum().item()


def determinant(self):
    return float(np.linalg.det(np.asarray(self, np.float64)))


def inverse(self):
    a = np.asarray(self)
    return host(np.linalg.inv(a).astype(a.dtype if a.dtype.kind == "f" else np.float32))


def transpose(self):
    return host(np.asarray(self).T)


def trace(self):
    return np.trace(np.asarray(self)).item()


def cast(self, dtype):
    return host(np.asarray(self).astype((as_dtype(dtype) or dtype).numpy))


def to_list(self):
    return np.asarray(self).tolist()


def to_numpy(self, keep_dims: bool = False):
    a = np.array(self)
    return a.reshape(-1, 1) if keep_dims and a.ndim == 1 else a


def get_shape(self):
    return tuple(np.shape(self))


def _sum(self):
    return np.asarray(self).sum().item()


def _max(self):
    return np.asarray(self).max().item()


def _min(self):
    return np.asarray(self).min().item()


def _any(self):
    return int(np.any(np.asarray(self)))


def _all(self):
    return int(np.all(np.asarray(self)))


def fill(self, value):
    np.asarray(self)[...] = value


METHODS = {"norm": norm, "norm_sqr": norm_sqr, "norm_inv": norm_inv, "normalized": normalized, "dot": dot,
           "cross": cross, "outer_product": outer_product, "frobenius_inner": frobenius_inner,
           "determinant": determinant, "inverse": inverse, "transpose": transpose, "trace": trace, "cast": cast,
           "to_list": to_list, "to_numpy": to_numpy, "get_shape": get_shape, "sum": _sum, "max": _max,
           "min": _min, "any": _any, "all": _all, "fill": fill}
for _name, _fn in METHODS.items():
    if _name not in ("sum", "max", "min", "any", "all", "fill", "transpose", "trace"):  # NumPy's own stay
        setattr(HostMatrix, _name, _fn)
