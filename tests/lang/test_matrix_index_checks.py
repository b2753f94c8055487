"""Vector/matrix indexing checked as Quadrants checks it: a matrix takes two indices and a vector one
("Expected 2 indices, got 1"), `trace()` wants a square matrix, `transpose()` of a vector is refused
(naming `outer_product`), and in debug mode a runtime index outside a local vector or an ndarray
fails the call with "Out of bound access" (the first failure of a launch is the one reported). Same
class and words as real Quadrants where it is installed."""
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


def _compile_errors(qd):
    f = qd.Matrix.field(3, 3, qd.f32, shape=())

    @qd.kernel
    def row_of_local():
        mat = qd.Matrix([[1, 2, 3], [4, 5, 6]])
        print(mat[0])

    @qd.kernel
    def two_on_vector():
        vec = qd.Vector([1, 2, 3, 4])
        print(vec[0, 0])

    @qd.kernel
    def row_of_field_element():
        print(f[None][0])

    @qd.kernel
    def trace_of_3x2():
        x = qd.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]])
        print(x.trace())

    @qd.kernel
    def transpose_of_vector():
        x = qd.Vector([1, 2])
        y = qd.Vector([3, 4])
        z = x @ y.transpose()  # noqa: F841

    return [(row_of_local, "Expected 2 indices, got 1"), (two_on_vector, "Expected 1 indices, got 2"),
            (row_of_field_element, "Expected 2 indices, got 1"),
            (trace_of_3x2, "expected a square matrix, got shape (3, 2)"),
            (transpose_of_vector, "`transpose()` cannot apply to a vector")]


@pytest.mark.parametrize("case", range(5))
def test_compile_time_index_and_shape_checks(case):
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            kernel, words = _compile_errors(qd)[case]
            with pytest.raises(qd.QuadrantsCompilationError) as e:
                kernel()
            assert words in str(e.value), (qd.__name__, str(e.value))
        finally:
            qd.reset()


def test_python_scope_trace_and_transpose_checks():
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            assert qd.Matrix([[0.1, 3.0], [5.0, 7.0]]).trace() == pytest.approx(7.1)
            with pytest.raises(qd.QuadrantsCompilationError, match=r"expected a square matrix, got shape \(3, 2\)"):
                qd.Matrix([[0.1, 3.0], [5.0, 7.0], [1.0, 2.0]]).trace()
            with pytest.raises(qd.QuadrantsCompilationError, match="outer_product"):
                qd.Vector([1, 2]).transpose()
        finally:
            qd.reset()


def test_debug_mode_reports_out_of_bound_runtime_indices():
    for qd in _implementations():
        qd.init(arch=qd.cpu, debug=True, check_out_of_bound=True)
        try:
            @qd.kernel
            def access_vec(i: qd.i32):
                x = qd.Vector([1, 0])
                x[i] = 42
                assert x[i] == 42

            @qd.kernel
            def access_mat(i: qd.i32, j: qd.i32):
                y = qd.Matrix([[1, 1, 1], [2, 2, 2], [3, 3, 3]])
                y[i, j] = 42
                assert y[i, j] == 42

            @qd.kernel
            def access_arr(a: qd.types.NDArray, x: qd.i32) -> qd.f32:
                return a[x]

            access_vec(1)
            access_mat(2, 2)
            for call in (lambda: access_vec(2), lambda: access_vec(-1), lambda: access_mat(2, 3),
                         lambda: access_mat(3, 0), lambda: access_arr(np.zeros(4), 4)):
                with pytest.raises(AssertionError, match="Out of bound access"):
                    call()
        finally:
            qd.reset()
