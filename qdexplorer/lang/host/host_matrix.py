"""Python-scope vectors and matrices: `qd.Vector([1, 2, 3])`, `qd.Matrix([[1, 2], [3, 4]])` outside kernels.

Quadrants gives these a Matrix class with its own methods (`v.norm()`, `v.normalized()`, `m.inverse()`,
swizzles `v.xy`, `v.x = 1`); here they are NumPy arrays of a subclass carrying the same methods, so
NumPy code and helpers that take arrays keep working. The methods are plain functions, also set on the
`qd.Vector` / `qd.Matrix` classes, so `qd.Vector.normalized(v, 1e-6)` works on any array, as it does in
Quadrants; kernels lower the same calls (frontend/calls.py looks them up in `METHODS`).
"""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import as_dtype
from ...ir.errors import QdCompileError, QuadrantsRuntimeError, QuadrantsSyntaxError
from ..calls.caller import caller
from ..compat import surface as compat

SWIZZLE = {c: k for group in ("xyzw", "rgba", "stpq") for k, c in enumerate(group)}


def swizzle_index(name: str):
    """The component positions a swizzle name reads (`xy` -> [0, 1]; one letter group), None otherwise."""
    if 1 <= len(name) <= 4 and all(c in SWIZZLE for c in name) and len({SWIZZLE.get(c) is not None for c in name}) == 1:
        for group in ("xyzw", "rgba", "stpq"):
            if all(c in group for c in name):
                return [SWIZZLE[c] for c in name]
    return None


class HostMatrix(np.ndarray):
    """A vector (1-d) or matrix (2-d) in Python scope: a NumPy array with Quadrants' Matrix methods."""

    def __getattr__(self, name: str):
        idx = swizzle_index(name) if not name.startswith("_") else None
        if idx is not None and self.ndim == 1:
            if max(idx) >= self.shape[0]:
                raise AttributeError(f"'.{name}' needs a vector of at least {max(idx) + 1} components")
            return self[idx[0]].item() if len(idx) == 1 else np.asarray(self)[idx].view(HostMatrix)
        if name.startswith("__"):
            raise AttributeError(name)
        compat.refuse_attr("vector" if self.ndim == 1 else "matrix", self, name)

    def __setattr__(self, name: str, value):
        idx = swizzle_index(name) if not name.startswith("_") else None
        if idx is not None and self.ndim == 1:
            n = self.shape[0]
            if max(idx) >= n:
                group = next(g for g in ("xyzw", "rgba", "stpq") if name[0] in g)
                raise QuadrantsSyntaxError(f"vec{n} only has attributes={tuple(group[:n])}, got={tuple(name)}")
            if len(idx) > 1 and np.size(value) != len(idx):
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


def _out_of_place(op):
    """`v += x` makes a new vector, as Quadrants' Matrix (which has no in-place operators) does: the
    result takes the promoted type (`qd.Vector([1, 2]) / 2` is a float vector) and a second name
    bound to the old vector keeps its values."""
    def apply(self, other):
        return host(op(np.asarray(self), np.asarray(other)))
    return apply


for _name, _op in (("iadd", np.add), ("isub", np.subtract), ("imul", np.multiply), ("itruediv", np.true_divide),
                   ("ifloordiv", np.floor_divide), ("imod", np.mod), ("ipow", np.power), ("imatmul", np.matmul),
                   ("iand", np.bitwise_and), ("ior", np.bitwise_or), ("ixor", np.bitwise_xor),
                   ("ilshift", np.left_shift), ("irshift", np.right_shift)):
    setattr(HostMatrix, f"__{_name}__", _out_of_place(_op))


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
    if a.shape == (2,):   # NumPy 2 deprecates np.cross of 2-vectors (a warning in every test that used it)
        return (a[0] * b[1] - a[1] * b[0]).item()
    return host(np.cross(a, b))


def outer_product(self, other):
    return host(np.outer(np.asarray(self), np.asarray(other)))


def frobenius_inner(self, other):
    return (np.asarray(self) * np.asarray(other)).sum().item()


def determinant(a):  # Quadrants' Matrix.determinant(a): the matrix is `a`
    return float(np.linalg.det(np.asarray(a, np.float64)))


def inverse(self):
    a = np.asarray(self)
    return host(np.linalg.inv(a).astype(a.dtype if a.dtype.kind == "f" else np.float32))


def _refuse(message: str):
    file, line = caller()
    return QdCompileError(message, file, line)


def transpose(self, *axes):
    """`m.transpose()`; a vector has none (Quadrants' refusal, naming `outer_product`)."""
    a = np.asarray(self)
    if axes:  # NumPy's own `a.transpose(1, 0)` (NumPy functions call it with axes)
        return np.ndarray.transpose(self, *axes)
    if a.ndim == 1:
        raise _refuse("`transpose()` cannot apply to a vector. If you want something like `a @ b.transpose()`, "
                      "write `a.outer_product(b)` instead.")
    return host(a.T)


def trace(self, *args, **kwargs):
    """`m.trace()` of a square matrix (Quadrants refuses any other shape)."""
    if args or kwargs:  # NumPy's own (np.trace(a, offset=...) calls it so)
        return np.ndarray.trace(self, *args, **kwargs)
    a = np.asarray(self)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise _refuse(f"expected a square matrix, got shape {a.shape}")
    return np.trace(a).item()


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


def fill(self, val):
    np.asarray(self)[...] = val


METHODS = {"norm": norm, "norm_sqr": norm_sqr, "norm_inv": norm_inv, "normalized": normalized, "dot": dot,
           "cross": cross, "outer_product": outer_product, "frobenius_inner": frobenius_inner,
           "determinant": determinant, "inverse": inverse, "transpose": transpose, "trace": trace, "cast": cast,
           "to_list": to_list, "to_numpy": to_numpy, "get_shape": get_shape, "sum": _sum, "max": _max,
           "min": _min, "any": _any, "all": _all, "fill": fill}
for _name, _fn in METHODS.items():
    if _name not in ("sum", "max", "min", "any", "all"):  # NumPy's own stay (fill: Quadrants' `val` name)
        setattr(HostMatrix, _name, _fn)
