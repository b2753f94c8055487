"""`qd.ad.Tape(validation=True)`: Quadrants' global data access rule checker (debug mode), its
warning without debug mode, and `snode.ptr`'s autodiff answers. Outcomes are real Quadrants 1.3.3's."""
import pytest

import qdexplorer.lang as qd
from qdexplorer.lang.compat.module_paths import quadrants_module


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu, debug=True)
    yield
    qd.reset()


def _kernels():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    b = qd.field(qd.f32, shape=(), needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def k1():
        for i in x:
            loss[None] += x[i] * b[None]

    @qd.kernel
    def k2():
        b[None] = 3.0

    @qd.kernel
    def k3():
        for i in x:
            x[i] = x[i] * 2.0

    x.fill(1.0)
    b[None] = 2.0
    return x, b, loss, k1, k2, k3


def test_a_kernel_that_keeps_the_rule_is_differentiated_as_usual():
    x, b, loss, k1, k2, k3 = _kernels()
    with qd.ad.Tape(loss=loss, validation=True) as t:
        k1()
        assert [f for f, _ in t.calls] == [k1] and k1.autodiff_mode == 1  # AutodiffMode.VALIDATION
    assert k1.autodiff_mode == 0
    assert x.grad.to_numpy().tolist() == [2.0] * 4 and b.grad[None] == 4.0
    assert x.snode.ptr.has_adjoint_checkbit() and not k2.autodiff_mode


def test_an_overwrite_after_a_read_raises_in_the_same_kernel_or_a_later_one():
    x, b, loss, k1, k2, k3 = _kernels()
    with pytest.raises(qd.QuadrantsAssertionError, match=r"\(kernel=k2\) Breaks the global data access rule. "
                                                         r"Snode b is overwritten unexpectedly"):
        with qd.ad.Tape(loss=loss, validation=True):
            k1()
            k2()
    with pytest.raises(qd.QuadrantsAssertionError, match=r"\(kernel=k3\) .* Snode x is overwritten"):
        with qd.ad.Tape(loss=loss, validation=True):
            k3()
    k3()  # outside a validating tape nothing is checked
    assert x.to_numpy().tolist() == [2.0] * 4  # as Quadrants: the checked store did not happen


def test_without_debug_mode_validation_warns_as_quadrants():
    qd.init(arch=qd.cpu)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    with pytest.warns(Warning, match=r"Debug mode is disabled, autodiff valid check will not work"):
        with qd.ad.Tape(loss=loss, validation=True):
            pass


def test_snode_ptr_grad_types():
    kind = quadrants_module("quadrants.types.enums").SNodeGradType
    x = qd.field(qd.f32, shape=(), needs_grad=True, needs_dual=True)
    assert x.snode.ptr.get_snode_grad_type() == kind.PRIMAL
    assert x.grad.snode.ptr.get_snode_grad_type() == kind.ADJOINT
    assert x.dual.snode.ptr.get_snode_grad_type() == kind.DUAL
    assert x.snode.ptr.has_adjoint() and not x.snode.ptr.has_adjoint_checkbit()
