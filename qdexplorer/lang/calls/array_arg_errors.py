"""An array argument that does not fit its `qd.types.ndarray(...)` annotation: the error Quadrants
raises, with its class and first words (programs and Quadrants' tests match on them), and the fix.

Quadrants words the refusal by what was passed. Its own ndarray (`qd.ndarray`, a field) is checked
by element type: a vector or matrix annotation wants that element type ("required element type:
VectorType[2, i32], but [Tensor (2, 3) i32] is provided", a ValueError), a scalar one that dtype
("Expect element type f32 for argument x, but get i32", a TypeError). An external array (NumPy,
torch) is checked by its axes ("required array has ndim=2 element_dim=2, array with 3 dimensions
is provided") and, under a scalar annotation, its dtype; under a vector or matrix annotation its
own dtype is taken, as Quadrants takes it.
"""
from __future__ import annotations

from ...ir.errors import QuadrantsRuntimeTypeError


class ArgumentValueError(QuadrantsRuntimeTypeError, ValueError):
    """An array whose element type or axes do not fit the annotation's; also a `ValueError`,
    Quadrants' class for it ("Invalid value for argument x")."""


def _element_name(el: tuple, dt) -> str:
    """Quadrants' name of an element: `i32`, `[Tensor (3) i32]`, `[Tensor (2, 3) f32]`."""
    if not el:
        return dt.name
    return f"[Tensor ({', '.join(map(str, el))}) {dt.name}]"


def _annotation_name(el: tuple, dt) -> str:
    d = f", {dt.name}" if dt is not None else ""
    return f"VectorType[{el[0]}{d}]" if len(el) == 1 else f"MatrixType[{el[0]},{el[1]}{d}]"


def check(kernel: str, name: str, t, v, a, adt, own: bool) -> None:
    """Raise Quadrants' error when array `v` (its storage `a`, dtype `adt`; `own`: a qd.ndarray or
    field) does not fit annotation `t`; return when it does (or when `t` leaves it open)."""
    dt, nd, el = t.dtype, t.ndim, tuple(t.elem)
    got_el = tuple(getattr(a, "elem_shape", ())) if own else ()
    fix = f" ({kernel}(): argument '{name}'"
    if own:
        if el and (got_el != el or (dt is not None and adt != dt)):
            raise ArgumentValueError(f"Invalid value for argument {name} - required element type: "
                                     f"{_annotation_name(el, dt)}, but {_element_name(got_el, adt)} is provided"
                                     f"{fix} takes an array of {el} elements of {(dt or adt).name})")
        if not el and t.elem_rank is None and dt is not None and (got_el or adt != dt):
            raise QuadrantsRuntimeTypeError(f"Expect element type {dt.name} for argument {name}, but get "
                                            f"{_element_name(got_el, adt)}{fix} must have dtype {dt.numpy})")
        user_nd = len(v.shape) if v.shape else 0
        if nd is not None and user_nd != nd and not (nd == 0 and v.shape == ()):
            raise ArgumentValueError(f"Invalid value for argument {name} - required ndim={nd}, but {user_nd}d "
                                     f"ndarray with shape {tuple(v.shape)} is provided{fix} must have {nd} "
                                     f"dimension(s), got shape {tuple(v.shape)})")
        return
    if not el and t.elem_rank is None and dt is not None and adt != dt:
        raise ArgumentValueError(f"Invalid value for argument {name} - required array has dtype={dt.name}, array "
                                 f"with dtype={adt.name} is provided{fix} must have dtype {dt.numpy}, got "
                                 f"{a.dtype}; convert it with .astype(np.{dt.numpy}))")
    if nd is not None and a.ndim != nd + len(el):
        eld = f" element_dim={len(el)}" if el else ""
        raise ArgumentValueError(f"Invalid value for argument {name} - required array has ndim={nd}{eld}, array "
                                 f"with {a.ndim} dimensions is provided{fix} must have {nd} dimension(s)"
                                 f"{' of ' + str(el) + ' elements' if el else ''}, got shape {tuple(a.shape)})")
    if el and tuple(a.shape[a.ndim - len(el):]) != el:
        raise ArgumentValueError(f"Invalid value for argument {name} - required element_shape={el}, array with "
                                 f"element shape of {tuple(a.shape[a.ndim - len(el):])} is provided{fix} holds "
                                 f"{el} elements: its last axes must be {el}, got shape {tuple(a.shape)})")
