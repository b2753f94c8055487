"""`qd.ad`: the Python side of reverse-mode autodiff (`Tape`, gradient clearing, custom gradients).

The adjoint kernels themselves are built by `autodiff/reverse.py` (`kernel.grad`); a tape only remembers
which kernels ran with which arguments and calls their `.grad` in reverse order.
"""
from __future__ import annotations
from ..calls.caller import caller

import contextlib
import functools

import numpy as np

import warnings

from . import reverse as autodiff, forward as autodiff_fwd
from ..calls import runtime_api
from ..field import Field, Ndarray
from ..field import Storage


def clear_all_gradients(gradient_type=None):
    """Zero every live field's and qd.ndarray's `.grad` (what a Tape does on entry); with
    `gradient_type=SNodeGradType.DUAL` (2, or "dual"), their `.dual` instead (FwdMode's entry)."""
    dual = gradient_type is not None and (getattr(gradient_type, "name", gradient_type) in ("DUAL", "dual")
                                          or gradient_type == 2)
    for st in Storage.live():
        d = st.adjoints.dual if dual else st.adjoints.grad
        if d is not None:
            d.fill(0)


def lazy_grad():
    """Give every live float field without a gradient its `.grad` (what `qd.root.lazy_grad()` does
    in Quadrants; an SNode tree's `lazy_grad` can call this)."""
    live = Storage.live()
    grads = {id(o.adjoints.grad) for o in live if o.adjoints.grad is not None}
    for st in live:
        if isinstance(st, Field) and st.adjoints.grad is None and st.dtype.is_float and id(st) not in grads:
            st.adjoints.need_grad()


class FwdMode:
    """`with qd.ad.FwdMode(loss=y, param=x, seed=[...]):` kernels called inside run as their
    forward-mode twins (lang/autodiff/forward.py), so `y.dual` holds the Jacobian-vector product of the
    seed; as in Quadrants, `param` and each loss are scalar fields with a `.dual`, the duals are
    zeroed on entry (clear_gradients) and the seed is taken out of `param.dual` on exit."""

    def __init__(self, loss, param, seed=None, clear_gradients: bool = True):
        self.loss, self.param, self.seed, self.clear_gradients = loss, param, seed, clear_gradients
        self.entered = False

    def __enter__(self):
        if self.entered:
            raise AssertionError("Forward mode manager can be entered only once.")
        self.entered = True
        losses = self.loss if isinstance(self.loss, list) else [self.loss]
        for f in losses + [self.param]:
            if not isinstance(f, Field) or f.elem_shape:
                raise TypeError(f"qd.ad.FwdMode takes scalar fields as loss and param, got {type(f).__name__}")
            if f.adjoints.dual is None:
                raise RuntimeError(f"field {f.name or ''} has no dual: allocate it with needs_dual=True or call "
                                   f"qd.root.lazy_dual() (forward-mode autodiff)")
        self.loss = losses
        n = int(np.prod(self.param.shape)) if self.param.shape else 1
        if not self.seed:
            if n != 1:
                raise RuntimeError("`seed` is not set for non 0-D field, please specify. `seed` is a list to specify "
                                   "which parameters the computed derivatives respect to; its length is the "
                                   "number of parameters")
            self.seed = [1.0]
        elif len(self.seed) != n:
            raise AssertionError(f"qd.ad.FwdMode: seed has {len(self.seed)} values for {n} parameters")
        if self.clear_gradients:
            clear_all_gradients(gradient_type="dual")
        d = self.param.dual
        if len(self.seed) == 1:
            d[None if not self.param.shape else 0] = 1.0 * self.seed[0]
        else:
            d.from_numpy(np.array(self.seed, dtype=d.dtype.numpy).reshape(self.param.shape))
        autodiff_fwd.ACTIVE.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        autodiff_fwd.ACTIVE.remove(self)
        d = self.param.dual
        if len(self.seed) == 1:
            d[None if not self.param.shape else 0] = 0.0
        else:
            d.fill(0)


class Tape:
    """`with qd.ad.Tape(loss=loss): forward()`: on exit, seeds `loss.grad` with 1 and runs the
    recorded kernels' `.grad` in reverse order, as Quadrants' Tape does."""

    def __init__(self, loss=None, clear_gradients: bool = True, validation: bool = False, grad_check=None):
        if loss is not None and not isinstance(loss, Storage):
            raise TypeError(f"qd.ad.Tape(loss=...) takes a field or qd.ndarray, got {type(loss).__name__}")
        if validation and not runtime_api.debug():
            warnings.warn("Debug mode is disabled, autodiff valid check will not work. Please specify "
                          "`qd.init(debug=True)` to enable the check.", Warning, stacklevel=2)
        self.loss, self.clear_gradients, self.validation = loss, clear_gradients, validation
        self.calls: list = []  # (function, its arguments), in call order, as Quadrants' Tape keeps them
        self.modes: list = []  # each recorded function's autodiff_mode before the tape (restored on exit)
        self.validated: dict = {}  # kernel -> its mode before this validating tape set it
        self.paused = 0
        self.gradient_evaluated = False

    def __enter__(self):
        loss = self.loss
        if isinstance(loss, Field) and loss.shape != ():
            raise RuntimeError("The loss of `Tape` must be a 0-D field, i.e. scalar")
        if loss is not None and int(np.prod(loss.shape)) != 1:
            raise RuntimeError("The loss of `Tape` must be an ndarray with only one element")
        if loss is not None and loss.adjoints.grad is None:
            raise RuntimeError("Gradients of loss are not allocated, please use qd.field(..., needs_grad=True) "
                               "(or qd.ndarray(..., needs_grad=True)) for all fields that are required by autodiff.")
        if self.clear_gradients and not isinstance(loss, Ndarray):  # as Quadrants: an ndarray loss clears nothing
            clear_all_gradients()
        if self.validation:  # the global data access rule's read bits start clear
            for st in Storage.live():
                cb = st.adjoints.checkbit
                if cb is not None:
                    cb.fill(0)
        if loss is not None:
            loss.fill(0)  # the forward pass accumulates into a zeroed loss, as Quadrants' Tape sets it
        autodiff.TAPES.append(self)
        return self

    def __exit__(self, exc_type, exc, tb):
        autodiff.TAPES.remove(self)
        try:
            if exc_type is None:
                self.grad()
        finally:
            for kernel, mode in self.validated.items():
                kernel.autodiff_mode = mode

    def validate(self, kernel):
        """Set a kernel this validating tape records to Quadrants' VALIDATION mode (debug mode then
        runs its rule-checking twin)."""
        if kernel not in self.validated:
            self.validated[kernel] = getattr(kernel, "autodiff_mode", 0)
            kernel.autodiff_mode = 1

    def insert(self, fn, args, kwargs=None):
        """Record a call: a kernel, or a `@qd.ad.grad_replaced` function whose registered gradient
        runs in its place."""
        self.modes.append(self.validated.get(fn, getattr(fn, "autodiff_mode", 0)))
        self.calls.append((fn, _Args(args, kwargs or {})))

    def grad(self):
        if self.gradient_evaluated:
            raise RuntimeError("qd.ad.Tape: the gradient of this tape was already evaluated")
        if self.loss is not None:
            self.loss.grad.fill(1)
        for fn, args in reversed(self.calls):
            fn.grad(*args, **args.kwargs)
        self.gradient_evaluated = True


class _Args(tuple):
    """A recorded call's positional arguments (Quadrants' Tape keeps `(function, args)` pairs),
    with its keyword arguments kept beside them for the replay."""

    kwargs: dict

    def __new__(cls, args, kwargs):
        t = super().__new__(cls, args)
        t.kwargs = kwargs
        return t


@contextlib.contextmanager
def _unrecorded():
    """The innermost Tape (None outside one), paused meanwhile: the kernels run inside are not
    recorded, for a function that stands in for them."""
    tape = autodiff.TAPES[-1] if autodiff.TAPES else None
    if tape is not None:
        tape.paused += 1
    try:
        yield tape
    finally:
        if tape is not None:
            tape.paused -= 1


def grad_replaced(func):
    """`@qd.ad.grad_replaced`: a Python function of kernels whose gradient a `@qd.ad.grad_for`
    function supplies; inside a Tape its kernels are not recorded, the function is."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _unrecorded() as tape:
            out = func(*args, **kwargs)
        if tape is not None and tape.paused == 0:
            tape.insert(wrapper, args, kwargs)
        return out

    setattr(wrapper, "grad", None)  # noqa: B010 - set by @qd.ad.grad_for
    return wrapper


def no_grad(func):
    """`@qd.ad.no_grad`: a Python function whose kernels a Tape does not record, so the backward
    pass skips them (their outputs are constants to the gradient), as Quadrants' `no_grad`."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with _unrecorded():
            return func(*args, **kwargs)

    setattr(wrapper, "grad", lambda *a, **k: None)  # noqa: B010 - as Quadrants: its gradient does nothing
    return wrapper


def grad_for(primal):
    """`@qd.ad.grad_for(forward)`: the function a Tape calls for `forward`'s gradient. As in
    Quadrants, `forward` must be a `@qd.ad.grad_replaced` Python function (a kernel has its own
    `.grad`), which the decorator checks when it is applied."""
    def deco(fn):
        if not hasattr(primal, "grad"):
            raise RuntimeError(f"Primal function `{getattr(primal, '__name__', primal)}` must be decorated by "
                               f"qd.ad.grad_replaced")
        if primal.grad is not None:
            raise RuntimeError("Primal function must be a **python** function instead of a quadrants kernel. Please "
                               "wrap the quadrants kernel in a @qd.ad.grad_replaced decorated python function instead.")
        setattr(primal, "grad", fn)  # noqa: B010
        return fn
    return deco
