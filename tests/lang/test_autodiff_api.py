"""Autodiff as held-out programs use it: `x.grad[i]` read and written inside kernels (a global field
or a template one), `@qd.ad.no_grad`, and a Tape through a kernel given one field for two template
parameters (an internal KeyError before). Expected values are real Quadrants 1.3.3's on the CPU."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def _fields():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    y = qd.field(qd.f32, shape=(), needs_grad=True)
    x.from_numpy(np.arange(4, dtype=np.float32))
    return x, y


def test_field_grad_is_read_and_written_inside_kernels():
    x, y = _fields()
    g = qd.field(qd.f32, shape=4)

    @qd.kernel
    def f():
        for i in x:
            y[None] += x[i] ** 2

    @qd.kernel
    def read_grad():
        for i in x:
            g[i] = x.grad[i] * 10.0

    @qd.kernel
    def write_grad():
        for i in x:
            x.grad[i] = 1.0 + i

    with qd.ad.Tape(loss=y):
        f()
    read_grad()
    write_grad()
    assert g.to_numpy().tolist() == [0.0, 20.0, 40.0, 60.0]
    assert x.grad.to_numpy().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_grad_of_a_template_field_inside_a_kernel():
    v = qd.Vector.field(2, qd.f32, shape=3, needs_grad=True)
    o = qd.field(qd.f32, shape=3)

    @qd.kernel
    def k(a: qd.template()):
        for i in a:
            a.grad[i] = qd.Vector([i, 2.0 * i])
            o[i] = a.grad[i][1] + a.grad[i].x

    k(v)
    assert v.grad.to_numpy().tolist() == [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]]
    assert o.to_numpy().tolist() == [0.0, 3.0, 6.0]


def test_no_grad_kernels_are_left_out_of_the_backward_pass():
    x, y = _fields()
    z = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def f():
        for i in x:
            y[None] += x[i] ** 2

    @qd.kernel
    def side():
        for i in x:
            z[None] += x[i] * 2.0

    @qd.ad.no_grad
    def untracked():
        side()

    with qd.ad.Tape(loss=y):
        f()
        untracked()
    assert x.grad.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0] and z[None] == 12.0


def test_tape_through_a_kernel_given_one_field_for_two_template_parameters():
    x, y = _fields()

    @qd.kernel
    def k(a: qd.template(), b: qd.template(), loss: qd.template()):
        for i in a:
            loss[None] += a[i] * b[i]

    with qd.ad.Tape(loss=y):
        k(x, x, y)
    assert x.grad.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0] and y[None] == 14.0


def test_struct_fields_with_needs_grad_differentiate_and_read_their_grad_in_kernels():
    s = qd.Struct.field({"a": qd.f32, "v": qd.math.vec2}, shape=4, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)
    out = qd.field(qd.f32, shape=4)

    @qd.kernel
    def fwd():
        for i in range(4):
            loss[None] += s[i].a * s[i].a + s[i].v[1] * 3.0

    @qd.kernel
    def read():
        for i in range(4):
            out[i] = s.grad[i].a + s.grad[i].v[1]

    s.a.from_numpy(np.arange(4, dtype=np.float32))
    with qd.ad.Tape(loss=loss):
        fwd()
    read()
    assert s.has_grad() and s.grad.a.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0]   # as Quadrants 1.3.3 gives
    assert s.grad.v.to_numpy()[:, 1].tolist() == [3.0] * 4 and out.to_numpy().tolist() == [3.0, 5.0, 7.0, 9.0]


def test_stop_grad_stops_the_gradient_into_a_field_in_its_own_task_only():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    loss = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def f():
        for i in range(4):
            qd.stop_grad(x)
            loss[None] += x[i] ** 2
        for i in range(4):
            loss[None] += x[i] ** 2

    x.from_numpy(np.arange(4, dtype=np.float32))
    with qd.ad.Tape(loss):
        f()
    assert x.grad.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0]  # Quadrants 1.3.3: 2 x from the second loop


def test_custom_gradients_checks_and_no_grad_placeholder_as_in_quadrants():
    x = qd.field(qd.f32, shape=4, needs_grad=True)
    total = qd.field(qd.f32, shape=(), needs_grad=True)

    @qd.kernel
    def acc(mul: qd.f32):
        for i in x:
            total[None] += x[i] * mul

    with pytest.raises(RuntimeError, match="must be a \\*\\*python\\*\\* function instead of a quadrants kernel"):
        @qd.ad.grad_for(acc)
        def backward(mul):
            acc.grad(mul)

    def plain(mul):
        acc(mul)

    with pytest.raises(RuntimeError, match="Primal function `plain` must be decorated by qd.ad.grad_replaced"):
        qd.ad.grad_for(plain)(lambda mul: None)

    @qd.ad.no_grad
    def forward(mul):
        acc(mul)

    total.grad[None] = 1
    forward(4.0)
    forward.grad(4.0)  # Quadrants' placeholder: the gradient of a no_grad function does nothing
    assert np.all(x.grad.to_numpy() == 0)


def test_a_missing_gradient_inside_a_kernel_is_quadrants_compilation_error():
    x = qd.field(qd.f32, shape=())

    @qd.kernel
    def f(a: qd.template()) -> qd.f32:
        return a.grad[None]

    with pytest.raises(qd.QuadrantsCompilationError, match=r"Gradient a.grad has not been placed, check whether "
                                                          r"`needs_grad=True`"):
        f(x)
