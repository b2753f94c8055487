import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils


@test_utils.test()
def test_literal_u32():
    @qd.kernel
    def pcg_hash(inp: qd.u32) -> qd.u32:
        state: qd.u32 = inp * qd.u32(747796405) + qd.u32(2891336453)
        word: qd.u32 = ((state >> ((state >> qd.u32(28)) + qd.u32(4))) ^ state) * qd.u32(277803737)
        return (word >> qd.u32(22)) ^ word

    assert pcg_hash(12345678) == 119515934
    assert pcg_hash(98765432) == 4244201195


