import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_static_grouped_func():
    K = 3
    dim = 2

    v = qd.Vector.field(K, dtype=qd.i32, shape=((K,) * dim))

    def stencil_range():
        return qd.ndrange(*((K,) * (dim + 1)))

    @qd.kernel
    def p2g():
        for I in qd.static(qd.grouped(stencil_range())):
            v[I[0], I[1]][I[2]] = I[0] + I[1] * 3 + I[2] * 10

    p2g()

    for i in range(K):
        for j in range(K):
            for k in range(K):
                assert v[i, j][k] == i + j * 3 + k * 10
