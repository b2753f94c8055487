"""`qd.ad`: the Python side of reverse-mode autodiff (`Tape`, gradient clearing, custom gradients).

The adjoint kernels themselves are built by `autodiff.py` (`kernel.grad`); a tape only remembers
which kernels ran with which arguments and calls their `.grad` in reverse order.
"""
from __future__ import annotations

import functools

import numpy as np

from . import autodiff
from .field import _Storage as Storage


def clear_all_gradients():
    """Zero every live field's and qd.ndarray's `.grad` (what a Tape does on entry)."""
    for st in Storage.live():
        if st._grad is not None:
            st._grad.fill(0)


class Tape:
    """`with qd.ad.Tape(loss=loss): forward()`: on exit, seeds `loss.grad` with 1 and runs the
    recorded kernels' `.grad` in reverse order, as Quadrants' Tape does."""

    def __init__(self, loss=None, clear_gradients: bool = True, validation: bool = False, grad_check=None):
        if loss is not None:
            if not isinstance(loss, Storage):
                raise TypeError(f"qd.ad.Tape(loss=...) takes a field, got {type(loss).__name__}")
            if int(np.prod(loss.shape)) != 1:
                raise ValueError(f"qd.ad.Tape(loss=...): the loss must be a single value (shape () or (1,)), "
                                 f"got a field of shape {loss.shape}")
            loss.grad  # noqa: B018 - raises, naming needs_grad=True, when the loss has no gradient
        if validation:
            raise NotImplementedError("qd.ad.Tape(validation=True): the global data access rule checker is not "
                                      "supported by qdexplorer (see docs/language.md)")
        self.loss, self.clear_gradients = loss, clear_gradients
        self.calls: list = []
        self.paused = 0
        self.gradient_evaluated = False

    def __enter__(self):
        if self.clear_gradients:
            clear_all_gradients()
        autodiff.TAPES.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        autodiff.TAPES.remove(self)
        if exc_type is None:
            self.grad()

    def insert(self, fn, args):
        """Record a `@qd.ad.grad_replaced` call: its registered gradient runs in its place."""
        self.calls.append((fn, args, {}))

    def grad(self):
        if self.gradient_evaluated:
            raise RuntimeError("qd.ad.Tape: the gradient of this tape was already evaluated")
        if self.loss is not None:
            self.loss.grad.fill(1)
        for fn, args, kwargs in reversed(self.calls):
            fn.grad(*args, **kwargs)
        self.gradient_evaluated = True


def grad_replaced(fn):
    """`@qd.ad.grad_replaced`: a Python function of kernels whose gradient a `@qd.ad.grad_for`
    function supplies; inside a Tape its kernels are not recorded, the function is."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        tape = autodiff.TAPES[-1] if autodiff.TAPES else None
        if tape is not None:
            tape.paused += 1
        try:
            out = fn(*args, **kwargs)
        finally:
            if tape is not None:
                tape.paused -= 1
        if tape is not None and tape.paused == 0:
            tape.calls.append((wrapper, args, kwargs))
        return out

    wrapper.grad = None
    return wrapper


def grad_for(primal):
    """`@qd.ad.grad_for(forward)`: the function a Tape calls for `forward`'s gradient."""
    if not hasattr(primal, "grad"):
        raise TypeError("qd.ad.grad_for(...) takes a function decorated with @qd.ad.grad_replaced")

    def deco(fn):
        primal.grad = fn
        return fn
    return deco
