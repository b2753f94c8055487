"""A field's or ndarray's derivative arrays: the links from a primal to its adjoint and tangent.

Each `Storage` holds one `Adjoints` (`x.adjoints`). Quadrants' public `x.grad` / `x.dual` raise
where the array was made without them (field.py keeps that behaviour); code of the language that
only asks whether one exists reads `x.adjoints.grad` / `.dual`, which are None then.
"""
from __future__ import annotations

import weakref

from ...ir.errors import QdRuntimeError


class GradDtypeError(QdRuntimeError, TypeError):
    """`needs_grad=True` on an integer field or ndarray (Quadrants' QuadrantsRuntimeError for it)."""


class Adjoints:
    """The derivative arrays of one primal, each an array of its own beside it (allocated as the
    primal is, zeroed): `grad` (reverse mode's adjoint, `x.grad`), `dual` (forward mode's tangent,
    `x.dual`), `checkbit` (the read bits `qd.ad.Tape(validation=True)` keeps, autodiff/validation.py);
    and, on an adjoint made unplaced by `x.grad` before its primal was placed, `grad_of`: the primal
    it must be placed beside. Held weakly by the primal's side, so a dropped field is freed at once."""

    def __init__(self, owner):
        self._owner = weakref.ref(owner)
        self.grad = None
        self.dual = None
        self.grad_of = None
        self.checkbit = None

    def __getstate__(self) -> dict:
        """Pickled with its primal (a pickled field or ndarray keeps its links, as it kept them before)."""
        return {"owner": self._owner(), "grad": self.grad, "dual": self.dual, "grad_of": self.grad_of,
                "checkbit": self.checkbit}

    def __setstate__(self, state: dict) -> None:
        self._owner = weakref.ref(state["owner"])
        self.grad, self.dual, self.grad_of, self.checkbit = (state["grad"], state["dual"], state["grad_of"],
                                                             state["checkbit"])

    def need_grad(self, needs: bool = True) -> None:
        """Allocate the adjoint (again, where asked twice: a fresh zeroed one, as before)."""
        if needs:
            self.grad = self._twin("grad", "gradients")

    def need_dual(self, needs: bool = True) -> None:
        """Allocate the tangent, unless the primal has one already."""
        if needs and self.dual is None:
            self.dual = self._twin("dual", "duals")

    def _twin(self, role: str, what: str):
        owner = self._owner()
        assert owner is not None, "the primal of these adjoints was garbage-collected"
        if not owner.dtype.is_float:
            raise GradDtypeError(f"{owner.dtype.name} is not supported for {type(owner).__name__.lower()} with "
                                 f"`needs_grad=True` or `needs_dual=True`. ({what} need a float dtype: qd.f32 / qd.f64)")
        return owner.twin(f"{owner.name}_{role}" if owner.name else "")

    def derived(self) -> list:
        """The gradient and the tangent that exist (the arrays derived from this primal)."""
        return [a for a in (self.grad, self.dual) if a is not None]

    def copy_for(self, owner) -> "Adjoints":
        """The same links, for a copy of the primal (`copy.deepcopy(x)` shares x's adjoints)."""
        out = Adjoints(owner)
        out.grad, out.dual, out.grad_of, out.checkbit = self.grad, self.dual, self.grad_of, self.checkbit
        return out


def gradient_of(v):
    """The gradient a kernel argument carries: a field's or ndarray's allocated adjoint (None where it
    has none: unlike `x.grad`, this never raises), a PyTorch tensor's `_grad`, None for anything else."""
    adj = getattr(v, "adjoints", None)
    if isinstance(adj, Adjoints):
        return adj.grad
    return getattr(v, "_grad", None)
