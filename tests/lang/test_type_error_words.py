"""Kernel type errors carry Quadrants' words (programs and its tests match on them), with ours after:
a bitwise operator on a float, vector sides of `a if c else b` of different sizes, and storing a
vector of the wrong size. Same class and words as real Quadrants where it is installed."""
import pytest

import qdexplorer.lang as ours


def _implementations():
    yield ours
    try:
        import quadrants as real
    except ImportError:
        return
    yield real


def _kernels(qd):
    f = qd.Vector.field(4, dtype=qd.i32, shape=())
    g = qd.Matrix.field(2, 2, dtype=qd.f32, shape=())

    @qd.kernel
    def bitwise_float():
        a = 1
        b = 3.1
        c = a & b  # noqa: F841

    @qd.kernel
    def ternary():
        a = qd.math.vec2(1.0, 1.0)
        b = 3
        c = qd.math.vec3(1.0, 1.0, 2.0)
        d = a if b else c  # noqa: F841

    @qd.kernel
    def store():
        f[None] = qd.Vector([1, 2, 3])

    @qd.kernel
    def store_matrix():
        g[None] = qd.Vector([1.0, 2.0])

    @qd.kernel
    def reassign():
        v = qd.Vector([1, 2, 3])
        v = qd.Vector([1, 2])  # noqa: F841

    return [(bitwise_float, "unsupported operand type(s) for '&': 'i32' and 'f32'"),
            (ternary, "Cannot broadcast tensor to tensor"),
            (store, "cannot assign '[Tensor (3) i32]' to '[Tensor (4) i32]'"),
            (store_matrix, "cannot assign '[Tensor (2) f32]' to '[Tensor (2, 2) f32]'"),
            (reassign, "cannot assign '[Tensor (2) i32]' to '[Tensor (3) i32]'")]


@pytest.mark.parametrize("case", range(5))
def test_type_errors_use_quadrants_words(case):
    for qd in _implementations():
        qd.init(arch=qd.cpu)
        try:
            kernel, words = _kernels(qd)[case]
            with pytest.raises(qd.QuadrantsTypeError) as e:
                kernel()
            assert words in str(e.value), (qd.__name__, str(e.value))
        finally:
            qd.reset()
