"""Fields with `offset=` (`qd.field(..., offset=)`, `place(..., offset=)`): indices start at the
offset in kernels, struct-fors and Python, as in Quadrants; an index outside the field from Python
is refused. The expected values were printed by real Quadrants 1.3.3 on the CPU running the same
programs."""
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_struct_for_and_indices_start_at_the_offset_for_globals_and_template_arguments():
    a = qd.field(qd.i32, shape=(4, 3), offset=(-2, 5))
    b = qd.field(qd.i32, shape=(4, 3))

    @qd.kernel
    def fill(x: qd.template()):
        for i, j in x:
            x[i, j] = i * 10 + j

    @qd.kernel
    def bump():
        for I in qd.grouped(a):
            a[I] += 1000

    fill(a)
    fill(b)  # the same kernel on a field without offset: its own specialisation
    assert a.to_numpy().tolist() == [[-15, -14, -13], [-5, -4, -3], [5, 6, 7], [15, 16, 17]]
    assert b.to_numpy().tolist() == [[0, 1, 2], [10, 11, 12], [20, 21, 22], [30, 31, 32]]
    assert (a[-2, 5], a[1, 7]) == (-15, 17)
    bump()
    assert a.to_numpy()[0].tolist() == [985, 986, 987]


def test_vector_fields_and_placed_fields_under_a_pointer_take_an_offset():
    v = qd.Vector.field(2, qd.f32, shape=3, offset=4)
    p = qd.field(qd.f32)
    qd.root.pointer(qd.i, 4).dense(qd.i, 2).place(p, offset=10)
    total = qd.field(qd.i32, shape=())

    @qd.kernel
    def run():
        for i in v:
            v[i] = [i, i * 2]
        for i in p:  # the active cell holds 12 and 13
            total[None] += i

    p[13] = 5
    run()
    assert v.to_numpy().tolist() == [[4.0, 8.0], [5.0, 10.0], [6.0, 12.0]]
    assert list(v[5]) == [5.0, 10.0]
    assert total[None] == 25 and p.to_numpy().tolist() == [0, 0, 0, 5, 0, 0, 0, 0] and p[13] == 5


def test_offset_errors_are_quadrants_syntax_errors():
    with pytest.raises(qd.QuadrantsSyntaxError, match=r"The dimensionality of shape and offset must be the same \(1 != 2\)"):
        qd.field(qd.f32, shape=3, offset=(3, 4))
    with pytest.raises(qd.QuadrantsSyntaxError, match="shape cannot be None when offset is set"):
        qd.Matrix.field(3, 3, dtype=qd.i32, shape=None, offset=(32, 16))


@pytest.mark.parametrize("key", [(2, 5), (-3, 5), (1, 8), (0, -1)])
def test_python_access_outside_the_field_is_refused_not_wrapped(key):
    """Quadrants' debug mode raises QuadrantsAssertionError here; NumPy would wrap a negative index
    to the far end silently, so it is refused in every mode."""
    a = qd.field(qd.i32, shape=(4, 3), offset=(-2, 5))
    with pytest.raises(AssertionError, match=r"Accessing field of size \(4, 3\) offset \(-2, 5\) with indices"):
        a[key]
    b = qd.field(qd.f32, shape=3)
    with pytest.raises(AssertionError, match=r"Accessing field of size \(3,\) with indices \(-1,\)"):
        b[-1] = 1.0
