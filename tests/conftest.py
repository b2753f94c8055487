import os
import re
import sys
import tempfile

import pytest

from tests import _cpu_profile_plugin

# Every test session gets its own cache folder: tests never read a developer's real cache. The workers of one
# `-n auto` run share it (xdist gives them one PYTEST_XDIST_TESTRUNUID): a project compiled by one worker is a
# disk hit for the other, as it already was for the next test of the same process. The cache is made for
# concurrent writers (tests/compiler/test_cache.py::test_concurrent_writers_leave_only_valid_entries).
# Tests that look at tiers (miss, disk, memory) keep a cache of their own.
_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")
if _RUN:
    _CACHE = os.path.join(tempfile.gettempdir(), f"qdx-test-cache-{os.getuid() if hasattr(os, 'getuid') else 0}-{_RUN}")
    os.makedirs(_CACHE, mode=0o700, exist_ok=True)
else:
    _CACHE = tempfile.mkdtemp(prefix="qdx-test-cache-")
os.environ.setdefault("QDEXPLORER_CACHE_DIR", _CACHE)
# The compile cache every test shares unless it needs its own (the developer's QDEXPLORER_CACHE_DIR, if set)
SESSION_CACHE = os.environ["QDEXPLORER_CACHE_DIR"]
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def pytest_configure(config):
    """QDX_TEST_CPU_LOG=FOLDER: each test's CPU into FOLDER (tests/_cpu_profile_plugin.py); unset, nothing."""
    if os.environ.get("QDX_TEST_CPU_LOG"):
        _cpu_profile_plugin.register(config)


def _cuda():
    from qdexplorer.runtime.cuda.detect import cuda_status
    return cuda_status()


def pytest_collection_modifyitems(config, items):
    _long_tests_are_where_suite_sh_looks(items)
    st = _cuda()
    if st.available:
        return
    skip = pytest.mark.skip(reason=f"{_CUDA_SKIP} {st.reason}")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


def _long_tests_are_where_suite_sh_looks(items):
    """tests/suite.sh gives its `long` process only the files whose text says `mark.long`: a test made long any
    other way (a conftest hook, a mark kept under another name) would run in neither process, so it stops here."""
    texts: dict = {}
    for item in items:
        if item.get_closest_marker("long") is not None:
            path = str(item.path)
            if path not in texts:
                texts[path] = re.search(r"mark\.long\b", item.path.read_text(errors="replace")) is not None
            if not texts[path]:
                raise pytest.UsageError(f"{item.nodeid} is marked long, but its file never says `mark.long`, where "
                                        f"tests/suite.sh looks for the long tests: mark it with pytest.mark.long there")


_CUDA_SKIP = "marked cuda, and CUDA is unavailable:"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Fold every CUDA skip into one line of `-ra`'s summary: hundreds of identical reasons, one per
    test file and line, buried the lines that matter (a new user counted 474 of 725)."""
    outcome = yield
    report = outcome.get_result()
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and len(longrepr) == 3 \
            and str(longrepr[2]).startswith(("Skipped: " + _CUDA_SKIP, _CUDA_SKIP)):
        report.longrepr = (__file__, None, longrepr[2])


@pytest.fixture
def cpu():
    import qdexplorer.lang as qd
    qd.init(arch=qd.cpu)
    yield qd
    qd.reset()


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=pytest.mark.cuda)])
def arch(request):
    """Run a language test on every backend: the CPU always, CUDA where a GPU exists."""
    import qdexplorer.lang as qd
    qd.init(arch=request.param)
    yield qd
    qd.reset()


@pytest.fixture
def cuda():
    import qdexplorer.lang as qd
    qd.init(arch=qd.cuda)
    yield qd
    qd.reset()


@pytest.fixture
def demo_path():
    from qdexplorer.project.loader import bundled_demo
    return bundled_demo()
