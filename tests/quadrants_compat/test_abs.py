import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_abs_u32():
    @qd.kernel
    def foo(x: qd.u32) -> qd.u32:
        return abs(x)

    for x in [0, 2**20]:
        assert foo(x) == abs(x)
