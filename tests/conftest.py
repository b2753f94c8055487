import os
import sys
import tempfile

import pytest

# Every test session gets its own cache folder: tests never read a developer's real cache.
_CACHE = tempfile.mkdtemp(prefix="qdx-test-cache-")
os.environ.setdefault("QDEXPLORER_CACHE_DIR", _CACHE)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def _cuda():
    from qdexplorer.runtime.cuda.detect import cuda_status
    return cuda_status()


def pytest_collection_modifyitems(config, items):
    st = _cuda()
    if st.available:
        return
    skip = pytest.mark.skip(reason=f"CUDA unavailable: {st.reason}")
    for item in items:
        if "cuda" in item.keywords:
            item.add_marker(skip)


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
