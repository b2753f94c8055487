"""The check Quadrants makes when it compiles a kernel after new fields were declared ("materialize"):
every field made without `shape=` must be placed by then, and so must the gradient (dual) of every
such field made with `needs_grad=True` (`needs_dual=True`): `place(x.grad)` or
`qd.root.lazy_grad()`; a vector/matrix field placed component by component (`get_scalar_field`)
must have every component in containers of one shape. Quadrants checks the fields declared since the last compile that passed the check;
so does this (`qd.init` and `qd.reset` forget the pending ones).
"""
from __future__ import annotations

import weakref

_PENDING: list = []  # weak references to (field, "file:line" it was made at), since the last call
_BAR = "=" * 44 + "\n"


def note(field, where: str) -> None:
    """A field made without shape= (its gradient placed by hand too): checked at the next compile."""
    _PENDING.append((weakref.ref(field), where))


def forget() -> None:
    _PENDING.clear()


def check() -> None:
    """Raise Quadrants' RuntimeError for unplaced fields, or unplaced gradients and duals, among the
    fields declared since the last compile; forget them once they pass (until then every compile
    fails, as in Quadrants)."""
    if not _PENDING:
        return
    live = [(f, where) for f, where in ((ref(), where) for ref, where in _PENDING) if f is not None]
    unplaced = [where for f, where in live if f.shape is None and f.adjoints.grad_of is None and not f.member_shapes]
    if unplaced:
        raise RuntimeError(f"These field(s) are not placed:\n{_BAR}" + _BAR.join(w + "\n" for w in unplaced)
                           + f"{_BAR}Please consider specifying a shape for them. E.g.,\n\n"
                           f"  x = qd.field(float, shape=(2, 3))")
    for kind in ("grad", "dual"):
        missing = sorted({where for f, where in live if f.shape is not None and getattr(f, f"_needs_{kind}")
                          and not _placed(getattr(f.adjoints, kind))})
        if missing:
            raise RuntimeError(f"These field(s) requrie `needs_{kind}=True`, however their {kind} field(s) are not "
                               f"placed:\n{_BAR}" + _BAR.join(w + "\n" for w in missing)
                               + f"{_BAR}Please consider place the {kind} field(s). E.g.,\n\n"
                               f"  qd.root.dense(qd.i, 1).place(x.{kind})\n\n Or specify a shape for the "
                               f"field(s). E.g.,\n\n  x = qd.field(float, shape=(2, 3), needs_{kind}=True)")
    for f, where in live:
        if f.member_shapes:  # placed component by component, in containers of different shapes
            raise RuntimeError(f"Members of the following field have different shapes {f.member_shapes}:\n{where}")
    _PENDING.clear()


def _placed(adjoint) -> bool:
    return adjoint is not None and adjoint.shape is not None
