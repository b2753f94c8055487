"""`qd.ndrange` forms Quadrants 1.3.3 accepts: `axes=` (visit order), `*` arguments, the 0-d range,
index vectors of `qd.grouped` as matrix indices, and its error messages."""
import numpy as np
import pytest

import qdexplorer.lang as qd


def visit_order(dims, axes):
    """Quadrants' order: level p loops over axis axes[p], level 0 outermost; indices stay canonical."""
    return list(qd.ndrange(*dims, axes=axes))


def test_axes_change_the_visit_order_only(cpu):
    assert visit_order((3, 2), (1, 0)) == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)]
    assert qd.ndrange(3, 4, axes=(0, 1)).axes is None and qd.ndrange(3, 4, axes=(1, 0)).axes == (1, 0)
    seen = qd.field(qd.i32, shape=24)
    top = qd.field(qd.i32, shape=24)

    @qd.kernel
    def k():
        n = 0
        for _ in range(1):
            for i, j, l in qd.ndrange(2, (1, 4), 4, axes=(2, 0, 1)):  # an inner loop: visited in that order
                seen[n] = i * 100 + j * 10 + l
                n += 1
        qd.loop_config(serialize=True)
        for I in qd.grouped(qd.ndrange(2, (1, 4), 4, axes=(2, 0, 1))):  # a task: same order, serialized
            top[(I[2] * 2 + I[0]) * 3 + I[1] - 1] = I[0] * 100 + I[1] * 10 + I[2]

    k()
    want = [i * 100 + j * 10 + l for i, j, l in visit_order((2, (1, 4), 4), (2, 0, 1))]
    assert seen.to_numpy().tolist() == want
    assert top.to_numpy().tolist() == want


def test_star_arguments_zero_d_and_index_vectors(cpu):
    val = qd.field(qd.i32, shape=())
    m = qd.Matrix.field(2, 3, dtype=qd.f32, shape=4)

    @qd.kernel
    def k() -> qd.i32:
        for I in qd.grouped(qd.ndrange()):
            val[I] = 42
        for n in range(4):
            for I in qd.static(qd.grouped(qd.ndrange(2, 3))):
                m[n][I] = I[0] + I[1] * 10 + n
        ret = 0
        for I in qd.grouped(qd.ndrange(*[[1, 3]] * 3)):
            ret += I[0] + I[1] + I[2]
        return ret

    assert k() == 36 and val[None] == 42
    np.testing.assert_array_equal(m.to_numpy()[3], [[3, 13, 23], [4, 14, 24]])


def test_ndrange_errors_use_quadrants_words(cpu):
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"qd\.ndrange\(axes=.*\) is not a permutation"):
        qd.ndrange(4, 5, axes=(0, 2))
    with pytest.raises(qd.QuadrantsTypeError, match="entries must be Python ints"):
        qd.ndrange(4, 5, axes=(True, False))

    @qd.kernel
    def three():
        for i in qd.ndrange((1, 2, 3)):
            pass

    @qd.kernel
    def floats():
        for i in qd.static(qd.ndrange(0.1, 0.2)):
            pass

    @qd.kernel
    def arity():
        for i in qd.ndrange(4, 4):
            pass

    with pytest.raises(qd.QuadrantsSyntaxError, match=r"tuple/list like \(begin, end\)"):
        three()
    with pytest.raises(qd.QuadrantsTypeError, match=r"integer scalar or a tuple/list of \(int, int\)"):
        floats()
    with pytest.raises(qd.QuadrantsSyntaxError, match="number of the loop variables not equal"):
        arity()

    gen = (n for n in range(10))

    @qd.kernel
    def from_generator():
        for I in qd.grouped(qd.ndrange(*gen)):
            pass

    with pytest.raises(ValueError, match="not a generator"):  # Quadrants raises a ValueError too
        from_generator()
