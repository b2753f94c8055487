import numpy as np
import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_static_ndrange():
    n = 3
    x = qd.Matrix.field(n, n, dtype=qd.f32, shape=(n, n))

    @qd.kernel
    def fill():
        w = [0, 1, 2]
        for i, j in qd.static(qd.ndrange(3, 3)):
            x[i, j][i, j] = w[i] + w[j] * 2

    fill()
    for i in range(3):
        for j in range(3):
            assert x[i, j][i, j] == i + j * 2


