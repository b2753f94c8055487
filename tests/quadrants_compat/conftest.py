"""Upstream's `wanted_arch` fixture: `qd.init(arch=...)` before each test, `qd.reset()` after."""
import pytest

import qdexplorer.lang as qd


@pytest.fixture(autouse=True)
def wanted_arch(request, req_arch, req_options):
    if req_arch is not None:
        qd.init(arch=req_arch, **req_options)
    yield
    if req_arch is not None:
        qd.reset()


def pytest_generate_tests(metafunc):
    if not getattr(metafunc.function, "__qd_test__", False):
        metafunc.parametrize("req_arch,req_options", [(None, None)], ids=["none"])


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: upstream's marker for long cases")
    config.addinivalue_line("markers", "run_in_serial: upstream's marker for tests its runner serialises")
    # upstream reruns these with pytest-rerunfailures; the ports are deterministic here, so the mark is
    # registered (no "unknown mark" warnings) and has no effect
    config.addinivalue_line("markers", "flaky(reruns, retries): upstream's rerun marker (no effect here)")
    config.addinivalue_line("markers", "needs_torch: upstream's marker for tests that use PyTorch (they skip without it)")
