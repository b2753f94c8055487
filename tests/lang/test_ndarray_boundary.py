"""`qd.types.ndarray(boundary="clamp")`: every index of the access is clamped into the array (the
element's components too, by their flat row-major index, as Quadrants clamps them), so an index
out of range reads the nearest cell instead of memory outside the array (it was ignored, and such
reads returned whatever lay there). Runs under qdexplorer.lang and, where installed, Quadrants."""
import numpy as np
import pytest

import qdexplorer.lang as ours
from tests.lang.quadrants_oracle import run_on_each


def _program(qd):
    @qd.kernel
    def scalar(x: qd.types.ndarray(boundary="clamp"), y: qd.i32) -> qd.f32:
        return x[y]

    @qd.kernel
    def vec(x: qd.types.ndarray(boundary="clamp"), y: qd.i32) -> qd.f32:
        return x[1, 2][y]

    @qd.kernel
    def mat(x: qd.types.ndarray(boundary="clamp"), i: qd.i32, j: qd.i32) -> qd.f32:
        return x[1, 2][i, j]

    @qd.kernel
    def write(x: qd.types.ndarray(boundary="clamp"), i: qd.i32):
        x[i] = 9.0

    x = qd.ndarray(qd.f32, shape=3)
    x.from_numpy(np.arange(3, dtype=np.float32))
    x2 = qd.ndarray(qd.math.vec2, shape=(3, 3))
    x3 = qd.ndarray(qd.math.mat2, shape=(3, 3))
    x2[1, 2] = [1, 2]
    x3[1, 2] = [[1, 2], [2, 3]]
    got = [scalar(x, k) for k in (-1, -2, 3, 4, 1)]
    got += [vec(x2, -1), vec(x2, 2)]
    got += [mat(x3, -1, 0), mat(x3, 1, -1), mat(x3, 2, 0), mat(x3, 1, 2)]
    write(x, 7)
    return got, x.to_numpy().tolist()


def test_clamped_reads_and_writes_match_quadrants():
    results = run_on_each(_program)
    want = ([0.0, 0.0, 2.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0, 3.0, 3.0], [0.0, 1.0, 9.0])
    for got in results:
        assert got == want


def test_an_unknown_boundary_mode_is_refused():
    with pytest.raises(ValueError, match="'unsafe' or 'clamp'"):
        ours.types.ndarray(boundary="wrap")


def test_a_write_a_few_cells_past_a_field_stays_in_its_own_allocation():
    """Without bounds checks (outside debug mode) such a write lands in slack behind the array, as in
    Quadrants' root buffer it lands in a neighbour, instead of in malloc's bookkeeping (which crashed
    the process at a later garbage collection, far from the cause)."""
    import gc
    ours.init(arch=ours.cpu)
    try:
        fields = [ours.field(ours.i32, shape=(55,)) for _ in range(4)]

        @ours.kernel
        def past(a: ours.template()):
            a[60] = 7

        for f in fields:
            past(f)
            base = f.storage.base
            assert base is not None and base.nbytes >= f.storage.nbytes + 32
        del fields
        gc.collect()
    finally:
        ours.reset()


def test_a_write_before_a_field_or_its_gradient_stays_in_its_own_allocation():
    """The same in front of the array (`p[t, y - 1, x]` at y = 0 is a flat index below 0), and for a
    gradient, which an adjoint kernel writes at the indices the kernel read: it landed in malloc's
    bookkeeping before the field's, and a later garbage collection aborted the process."""
    import gc
    ours.init(arch=ours.cpu)
    try:
        fields = [ours.field(ours.f32, shape=(3, 8), needs_grad=True) for _ in range(4)]

        @ours.kernel
        def before(a: ours.template()):
            for x in range(8):
                a[0, x - 8] = 7.0
                a.grad[0, x - 8] = 5.0

        for f in fields:
            before(f)
            for st in (f.storage, f.grad.storage):
                base = st.base
                assert base is not None
                lead = (st.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // st.itemsize
                assert lead >= 8
            assert f.storage.base[lead - 8:lead].tolist() == [7.0] * 8
            assert f.grad.storage.base[lead - 8:lead].tolist() == [5.0] * 8
            assert not f.to_numpy().any() and not f.grad.to_numpy().any()
        del fields
        gc.collect()
    finally:
        ours.reset()
