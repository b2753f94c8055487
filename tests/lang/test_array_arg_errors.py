"""An array argument that does not fit its annotation fails as in Quadrants: the same class
(ValueError / TypeError) and first words, which programs and Quadrants' own tests match on, and
a NumPy array under a vector/matrix annotation keeps its own dtype, as Quadrants takes it. Each
case runs under qdexplorer.lang and, where installed, real Quadrants."""
import numpy as np
import pytest

import qdexplorer.lang as ours


def _implementations():
    yield ours
    try:
        import quadrants as real
    except ImportError:
        return
    yield real


CASES = [  # (annotation maker, argument maker, class, the message's start)
    (lambda qd: qd.types.NDArray[qd.types.vector(2, qd.i32), 2],
     lambda qd: qd.Matrix.ndarray(2, 3, qd.i32, shape=(4, 7)), ValueError,
     "Invalid value for argument a - required element type: VectorType[2, i32], but [Tensor (2, 3) i32] is provided"),
    (lambda qd: qd.types.NDArray[qd.types.matrix(2, 2, qd.i32), 2],
     lambda qd: qd.Vector.ndarray(2, qd.i32, shape=(4, 7)), ValueError,
     "Invalid value for argument a - required element type: MatrixType[2,2, i32], but [Tensor (2) i32] is provided"),
    (lambda qd: qd.types.NDArray[qd.i32, 2], lambda qd: qd.ndarray(qd.i32, shape=(3,)), ValueError,
     "Invalid value for argument a - required ndim=2, but 1d ndarray with shape (3,) is provided"),
    (lambda qd: qd.types.NDArray[qd.f32, 2], lambda qd: qd.ndarray(qd.types.vector(3, qd.i32), shape=(12, 4)),
     TypeError, "Expect element type f32 for argument a, but get [Tensor (3) i32]"),
    (lambda qd: qd.types.ndarray(qd.i32, ndim=1), lambda qd: np.zeros(5, np.int64), ValueError,
     "Invalid value for argument a - required array has dtype=i32, array with dtype=i64 is provided"),
    (lambda qd: qd.types.ndarray(dtype=qd.math.mat3, ndim=2), lambda qd: np.zeros((2, 2, 2, 3), np.float32),
     ValueError, "Invalid value for argument a - required element_shape=(3, 3), array with element shape of (2, 3)"),
    (lambda qd: qd.types.ndarray(dtype=qd.math.mat3, ndim=2), lambda qd: np.zeros((2, 2, 3), np.float32),
     ValueError, "Invalid value for argument a - required array has ndim=2 element_dim=2, array with 3 dimensions"),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_mismatched_array_fails_with_quadrants_class_and_words(case):
    annotation, argument, cls, start = CASES[case]
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            @qd.kernel
            def k(a: annotation(qd)):
                pass

            with pytest.raises(cls) as e:
                k(argument(qd))
            assert start in str(e.value), (qd.__name__, str(e.value))
        finally:
            qd.reset()


def test_a_numpy_array_under_a_matrix_annotation_keeps_its_dtype():
    got = []
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            @qd.kernel
            def fill(a: qd.types.ndarray(dtype=qd.math.mat2)):
                for i in range(3):
                    for j, k in qd.ndrange(2, 2):
                        a[i][j, k] = j * 2 + k + 0.5

            m, f = np.zeros((3, 2, 2), np.int32), np.zeros((3, 2, 2), np.float64)
            fill(m)
            fill(f)
            got.append((m.copy(), f.copy()))
        finally:
            qd.reset()
    for m, f in got:
        assert m[1].tolist() == [[0, 1], [2, 3]] and f[1].tolist() == [[0.5, 1.5], [2.5, 3.5]]


def test_a_strided_numpy_view_is_refused_with_quadrants_words():
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            @qd.kernel
            def fill(img: qd.types.ndarray()):
                img[0] = 1

            with pytest.raises(ValueError, match="Non contiguous numpy arrays are not supported"):
                fill(np.zeros(shape=(2, 2))[:, 0])
        finally:
            qd.reset()
