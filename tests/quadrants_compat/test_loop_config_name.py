import pathlib

import pytest

import qdexplorer.lang as qd

from tests.quadrants_compat import test_utils

_vk_on_mac = (qd.vulkan, "Darwin")


@test_utils.test(offline_cache=False)
def test_loop_config_name_top_level_does_not_warn(capfd: pytest.CaptureFixture[str]):
    # Names on top-level loops and on loops unrolled via `qd.static` are honored, so they must NOT
    # trigger the nested-loop warning.
    n = 16
    a = qd.ndarray(qd.i32, shape=(n,))

    @qd.kernel
    def top_and_static(a: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        qd.loop_config(name="top_loop")
        for i in range(n):
            a[i] = a[i] + 1
        for _ in qd.static(range(2)):
            qd.loop_config(name="static_loop")
            for i in range(n):
                a[i] = a[i] + 1

    capfd.readouterr()
    top_and_static(a)
    qd.sync()

    combined = "".join(capfd.readouterr())
    assert "nested inside another for-loop" not in combined, combined


