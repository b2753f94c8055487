import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_parallel_range_for():
    n = 1024 * 1024
    val = qd.field(qd.i32, shape=(n))

    @qd.kernel
    def fill():
        qd.loop_config(parallelize=8, block_dim=8)
        for i in range(n):
            val[i] = i

    fill()
    # To speed up
    val_np = val.to_numpy()
    for i in range(n):
        assert val_np[i] == i


@test_utils.test()
def test_loop_config_parallel_range_for():
    n = 1024 * 1024
    val = qd.field(qd.i32, shape=(n))

    @qd.kernel
    def fill():
        qd.loop_config(parallelize=8, block_dim=8)
        for i in range(n):
            val[i] = i

    fill()
    # To speed up
    val_np = val.to_numpy()
    for i in range(n):
        assert val_np[i] == i


