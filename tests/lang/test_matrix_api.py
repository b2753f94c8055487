"""Quadrants' Matrix/Vector API as held-out programs use it: `qd.Matrix.diag/rows/cols` and methods
called on the class (`qd.Vector.normalized(v, eps)`) in kernels, chained vector comparisons,
`qd.floor(x, dtype=)`, swizzles written from Python (`x[0].x = 5`), Python-scope vector methods.
Expected values are what real Quadrants 1.3.3 printed for the same programs on the CPU."""
import numpy as np
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def cpu():
    qd.init(arch=qd.cpu)
    yield
    qd.reset()


def test_diag_rows_cols_and_class_called_methods_in_a_kernel():
    r = qd.field(qd.f32, shape=8)

    @qd.kernel
    def k(x: qd.f32):
        m = qd.Matrix.diag(3, x)
        r[0] = m[0, 0]
        r[1] = m[1, 1]
        r[2] = m[0, 1]
        c = qd.Matrix.cols([qd.Vector([1.0, 2.0]), qd.Vector([3.0, 4.0])])
        r[3] = c[0, 1]
        r[4] = c[1, 0]
        rr = qd.Matrix.rows([qd.Vector([1.0, 2.0]), qd.Vector([3.0, 4.0])])
        r[5] = rr[0, 1]
        v = qd.Vector([3.0, 4.0])
        r[6] = qd.Vector.normalized(v, 1e-6)[0]
        r[7] = qd.Vector.norm(v)

    k(2.5)
    np.testing.assert_allclose(r.to_numpy(), [2.5, 2.5, 0.0, 3.0, 2.0, 2.0, 0.6, 5.0], rtol=1e-6)


def test_chained_vector_comparisons_and_floor_with_a_dtype_keyword():
    ri = qd.field(qd.i64, shape=4)

    @qd.kernel
    def k(x: qd.f32):
        a, b, p = qd.Vector([0.0, 0.0]), qd.Vector([1.0, 1.0]), qd.Vector([x, 0.5])
        ri[0] = (a <= p <= b).all()
        ri[1] = 0 <= x <= 1
        ri[2] = qd.floor(x, dtype=qd.u32) - 1          # u32 arithmetic: 0 - 1 wraps
        ri[3] = qd.cast(qd.floor(x * 10.0, dtype=qd.u32), qd.i32)

    k(0.3)
    assert ri.to_numpy().tolist() == [1, 1, 4294967295, 3]
    k(1.7)
    assert ri.to_numpy().tolist() == [0, 0, 0, 17]


def test_swizzles_and_methods_of_a_field_element_from_python():
    vf = qd.Vector.field(3, qd.f32, shape=4)
    vf[0].x = 5.0
    vf[1].y = 2.0
    vf[0][2] = 7.0
    assert vf.to_numpy()[:2].tolist() == [[5.0, 0.0, 7.0], [0.0, 2.0, 0.0]]
    assert vf[0].x == 5.0 and vf[0].xz.tolist() == [5.0, 7.0]
    assert vf[0].norm() == pytest.approx(8.602325267042627)


def test_python_scope_vectors_and_matrices_have_quadrants_methods():
    v, m = qd.Vector([3.0, 4.0]), qd.Matrix([[1.0, 2.0], [3.0, 4.0]])
    assert v.norm() == 5.0 and v.normalized().tolist() == pytest.approx([0.6, 0.8])
    assert qd.Vector.normalized(v, 1e-6).tolist() == pytest.approx([0.6, 0.8], rel=1e-5)
    assert (v.x, v.yx.tolist(), v.n) == (3.0, [4.0, 3.0], 2)
    v.y = 1.0
    assert v.tolist() == [3.0, 1.0]
    np.testing.assert_allclose(m.inverse(), [[-2.0, 1.0], [1.5, -0.5]], rtol=1e-6)
    assert qd.Matrix.diag(2, 3.0).tolist() == [[3.0, 0.0], [0.0, 3.0]]
    assert qd.Matrix.cols([[1, 2], [3, 4]]).tolist() == [[1, 3], [2, 4]]
