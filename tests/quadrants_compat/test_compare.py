import pytest

import qdexplorer.lang as qd
from tests.quadrants_compat.upstream import impl

from tests.quadrants_compat import test_utils


@test_utils.test(default_ip=qd.i64, require=qd.extension.data64)
def test_compare_ret_type():
    # The purpose of this test is to make sure a comparison returns i32
    # regardless of default_ip so that it can always serve as the condition of
    # an if/while statement.
    @qd.kernel
    def foo():
        for i in range(100):
            if i == 0:
                pass
        i = 100
        while i != 0:
            i -= 1

    foo()


@test_utils.test()
def test_python_scope_compare():
    v = qd.math.vec3(0, 1, 2)
    assert (v < 1)[0] == 1
