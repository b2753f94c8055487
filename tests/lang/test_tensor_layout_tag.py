"""Layout-tagged ndarrays (Quadrants' `_qd_layout` / `quadrants._tensor._with_layout`): an ndarray
allocated at the physical shape and tagged reads, writes and exports in canonical order, in kernels
(also through `x.grad`) and from Python. Each program runs under qdexplorer.lang and, where it is
installed, under real Quadrants, and both must give the same numbers."""
import numpy as np
import pytest

import qdexplorer.lang as ours
from qdexplorer.lang.tensor import _with_layout as ours_with_layout


def _implementations():
    yield ours, ours_with_layout
    try:
        import quadrants as real
        from quadrants._tensor import _with_layout as real_with_layout
    except ImportError:
        return
    yield real, real_with_layout


def _run_both(program):
    results = []
    for qd, with_layout in _implementations():
        qd.init(arch=qd.cpu)
        try:
            results.append(program(qd, with_layout))
        finally:
            qd.reset()
    for r in results[1:]:
        for a, b in zip(results[0], r):
            np.testing.assert_array_equal(a, b)
    return results[0]


def test_a_tagged_ndarray_is_canonical_in_kernels_and_numpy_io():
    def program(qd, with_layout):
        a = qd.ndarray(qd.i32, shape=(4, 3))  # physical (4, 3); canonical (3, 4) under layout (1, 0)
        with_layout(a, (1, 0))

        @qd.kernel
        def fill(x: qd.types.ndarray()):
            for i, j in qd.ndrange(3, 4):
                x[i, j] = i * 100 + j

        fill(a)
        return [np.array(a.shape), np.array(a._physical_shape), a.to_numpy(), np.array(qd.Tensor(a)[2, 1])]  # Quadrants' bare ndarray indexes physically from Python (its
        # own documented gotcha); its qd.Tensor wrapper, and every array here, index canonically

    shape, phys, arr, cell = _run_both(program)
    assert tuple(shape) == (3, 4) and tuple(phys) == (4, 3)
    assert arr[2, 3] == 203 and arr[1, 0] == 100 and cell == 201


@pytest.mark.parametrize("layout", [(2, 0, 1), (1, 2, 0)])
def test_rank3_tag_moves_data_written_before_it_as_the_physical_buffer(layout):
    def program(qd, with_layout):
        canonical = (2, 3, 4)
        physical = tuple(canonical[k] for k in layout)
        a = qd.ndarray(qd.f32, shape=physical)
        a.from_numpy(np.arange(24, dtype=np.float32).reshape(physical))
        with_layout(a, layout)

        @qd.kernel
        def twice(x: qd.types.ndarray()):
            for i, j, k in qd.ndrange(*canonical):
                x[i, j, k] = x[i, j, k] * 2 + i

        twice(a)
        return [a.to_numpy()]

    (arr,) = _run_both(program)
    want = np.transpose(np.arange(24).reshape(tuple((2, 3, 4)[k] for k in layout)), np.argsort(layout)) * 2
    np.testing.assert_array_equal(arr, want + np.arange(2)[:, None, None])


def test_the_tag_carries_over_to_the_gradient_read_in_a_kernel():
    def program(qd, with_layout):
        a = qd.ndarray(qd.f32, shape=(3, 2), needs_grad=True)
        with_layout(a, (1, 0))

        @qd.kernel
        def fill(x: qd.types.ndarray()):
            for i, j in qd.ndrange(2, 3):
                x[i, j] = float(i * 10 + j)
                x.grad[i, j] = float(i * 100 + j * 10)

        fill(a)
        return [a.to_numpy(), a.grad.to_numpy(), np.array(a.grad.shape)]

    primal, grad, gshape = _run_both(program)
    assert tuple(gshape) == (2, 3) and primal[1, 2] == 12.0 and grad[1, 2] == 120.0


def test_a_bad_layout_is_refused():
    ours.init(arch=ours.cpu)
    try:
        a = ours.ndarray(ours.i32, shape=(3, 4))
        with pytest.raises(ValueError, match="not a permutation"):
            ours_with_layout(a, (0, 0))
        with pytest.raises(ValueError, match="3 entries but ndarray has 2 dims"):
            ours_with_layout(a, (0, 1, 2))
        assert ours.tensor(ours.i32, (3, 4), layout=(0, 1))._qd_layout is None  # identity: no tag
    finally:
        ours.reset()


def test_ndrange_unpacks_a_constant_shape_tuple_at_top_level_and_inside_a_loop():
    def program(qd, with_layout):
        canonical, inner = (2, 3), ((1, 3),)
        a = qd.ndarray(qd.i32, shape=canonical)
        b = qd.ndarray(qd.i32, shape=(2,))

        @qd.kernel
        def fill(x: qd.types.ndarray(), y: qd.types.ndarray()):
            for i, j in qd.ndrange(*canonical):
                x[i, j] = i * 10 + j
            for i in range(2):
                for (k,) in qd.ndrange(*inner):
                    y[i] += k

        fill(a, b)
        return [a.to_numpy(), b.to_numpy()]

    arr, sums = _run_both(program)
    assert arr[1, 2] == 12 and sums.tolist() == [3, 3]


def test_field_order_is_reported_as_its_layout_and_shape_fields_have_a_place_snode():
    def program(qd, with_layout):
        f = qd.field(qd.f32, shape=(5, 7), order="ji", needs_grad=True)
        v = qd.Vector.field(2, dtype=qd.f32, shape=(4, 5), order="ji")
        plain = qd.field(qd.f32, shape=(5, 7))

        @qd.kernel
        def fill(f: qd.template()):
            for i, j in qd.ndrange(5, 7):
                f[i, j] = i * 10 + j

        fill(f)
        root = f._snode.parent().parent()
        return [np.array(f._qd_layout), np.array(f.grad._qd_layout), np.array(v.layout),
                np.array(getattr(plain, "_qd_layout", None) is None), np.array(root.parent() is None), f.to_numpy()]  # (the dense SNode's shape is the physical one in Quadrants, the canonical one here)

    flay, glay, vlay, plain_none, root_is_top, arr = _run_both(program)
    assert tuple(flay) == tuple(glay) == tuple(vlay) == (1, 0) and plain_none and root_is_top
    assert arr[4, 6] == 46


def test_an_optional_tensor_argument_checked_with_qd_static_is_none():
    def program(qd, with_layout):
        out = qd.ndarray(qd.f32, shape=(4,))
        bias = qd.ndarray(qd.f32, shape=(4,))
        bias.from_numpy(np.full(4, 100.0, dtype=np.float32))

        @qd.kernel
        def add_bias(out: qd.types.NDArray[qd.f32, 1], bias: qd.Tensor):
            for i in range(out.shape[0]):
                if qd.static(bias is not None):
                    out[i] = qd.f32(i) + bias[i]
                else:
                    out[i] = qd.f32(i)

        add_bias(out, qd.wrap(bias))
        first = out.to_numpy()
        add_bias(out, None)
        return [first, out.to_numpy()]

    with_bias, without = _run_both(program)
    assert with_bias.tolist() == [100, 101, 102, 103] and without.tolist() == [0, 1, 2, 3]
