import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_singleton():
    x = qd.field(qd.i32, shape=())

    @qd.kernel
    def fill():
        for I in qd.grouped(x):
            x[I] = 3

    fill()

    assert x[None] == 3


