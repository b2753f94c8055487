"""Fields made without `shape=` must be placed (and, with `needs_grad=True`, their gradient too) by
the time a kernel is compiled, as Quadrants checks ("materialize"); a gradient can be placed in a
container of its own, or by `lazy_grad()`. The behaviour was checked against real Quadrants 1.3.3 on
the CPU running the same programs."""
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_an_unplaced_field_fails_every_compile_until_it_is_placed():
    a = qd.field(qd.i32)

    @qd.kernel
    def nop():
        pass

    for _ in range(2):
        with pytest.raises(RuntimeError, match=r"These field\(s\) are not placed:\n=+\n.*test_field_placement.py:"):
            nop()
    qd.root.dense(qd.i, 2).place(a)
    nop()


@pytest.mark.parametrize("kind", ["grad", "dual"])
@pytest.mark.parametrize("elem", ["scalar", "vector", "struct"])
def test_a_field_needing_a_gradient_fails_the_compile_until_the_gradient_is_placed(kind, elem):
    opt = {f"needs_{kind}": True}
    x = {"scalar": lambda: qd.field(qd.f32, **opt), "vector": lambda: qd.Vector.field(3, qd.f32, **opt),
         "struct": lambda: qd.Struct.field({"p": qd.types.vector(3, float), "m": qd.f32}, **opt)}[elem]()
    qd.root.dense(qd.i, 1).place(x)

    @qd.kernel
    def nop():
        pass

    with pytest.raises(RuntimeError, match=rf"These field\(s\) requrie `needs_{kind}=True`, however their {kind} "
                                           rf"field\(s\) are not placed"):
        nop()


def test_a_gradient_placed_in_its_own_container_or_by_lazy_grad_is_the_one_kernels_write():
    y = qd.field(qd.f32, needs_grad=True)
    qd.root.dense(qd.i, 4).place(y)
    qd.root.dense(qd.i, 4).place(y.grad)  # the primal placed first, its adjoint after
    z = qd.field(qd.f32, needs_grad=True)
    qd.root.dense(qd.i, 4).place(z)
    assert z.grad.shape is None  # not placed yet: lazy_grad() places it
    qd.root.lazy_grad()

    @qd.kernel
    def k():
        for i in z:
            z.grad[i] = i
            y.grad[i] = 2 * i

    k()
    assert z.grad.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert y.grad.to_numpy().tolist() == [0.0, 2.0, 4.0, 6.0]


def test_python_side_misuse_of_a_field_raises_quadrants_errors():
    val = qd.field(qd.i32, shape=(1, 2, 3), name="val")
    assert val._name == "val"
    with pytest.raises(AssertionError, match="Slicing is not supported on qd.field"):
        val[0, 0] = 1
    with pytest.raises(TypeError, match="Detected illegal element of type: .*slice.*slicing a qd.field is not "
                                        "supported"):
        val[0, :, 0]
    with pytest.raises(NotImplementedError, match="Struct for is only available in Quadrants scope"):
        for _ in val:
            pass
    with pytest.raises(RuntimeError, match="Every dimension of a Quadrants field should be positive, got 0 in "
                                           "demension 0"):
        qd.field(qd.f32, shape=0)
    with pytest.raises(RuntimeError, match=r"i32 is not supported for field with `needs_grad=True` or "
                                           r"`needs_dual=True`"):
        qd.Struct.field({"pos": qd.types.vector(3, int), "mass": qd.f32}, shape=1, needs_grad=True)


def test_a_whole_field_as_an_operand_is_quadrants_type_error_and_snode_names():
    x = qd.field(int, shape=())
    b = qd.field(qd.math.vec3, shape=(2, 3), name="b")
    assert b.snode._name == "b" and b.snode.parent()._name == ""

    @qd.kernel
    def foo():
        a = qd.Vector([1, 1, 1])
        c = a * x  # noqa: F841

    with pytest.raises(qd.QuadrantsTypeError, match="unsupported operand type"):
        foo()


def test_components_placed_in_containers_of_different_shapes_fail_the_compile():
    a = qd.Matrix.field(2, 2, qd.i32)
    for (i, j), n in zip([(0, 0), (0, 1), (1, 0), (1, 1)], [10, 11, 10, 11]):
        qd.root.dense(qd.i, n).place(a.get_scalar_field(i, j))

    @qd.kernel
    def nop():
        pass

    with pytest.raises(RuntimeError, match=r"Members of the following field have different shapes"):
        nop()
