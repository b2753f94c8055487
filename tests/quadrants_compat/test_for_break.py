import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_write_after_break():
    a = qd.field(qd.i32, shape=5)
    a.fill(-1)

    @qd.kernel
    def foo():
        qd.loop_config(serialize=True)
        for i in range(5):
            while True:
                if i > 3:
                    break
                a[i] = i
                break

    foo()

    assert a[4] == -1
