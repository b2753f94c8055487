import importlib.util
import os

import pytest

from tests._cli import run_cli
from tests.quadrants import _forked_bridge

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs")
HAVE_QUADRANTS = importlib.util.find_spec("quadrants") is not None
needs_quadrants = pytest.mark.skipif(
    not HAVE_QUADRANTS, reason="Quadrants is not installed (pip install '.[test]' installs quadrants==1.3.3 on "
    "Linux x86_64, Python 3.10-3.13; elsewhere pip install quadrants==1.3.3 if a wheel exists)")


def program(name: str) -> str:
    return os.path.join(PROGRAMS, name)


def cli(*args, timeout=300, **kw):
    """`python -m qdexplorer.cli *args`, in this process (tests/_cli.py; QDX_TEST_CLI_SUBPROCESS=1: a child)."""
    return run_cli(*args, timeout=timeout, **kw)


@pytest.fixture(scope="package", autouse=True)
def _temp_folders_in_pytest_tmp(tmp_path_factory):
    """Dump and load folders are kept by design (the CLI prints where); in tests they go to pytest's tmp.
    Package scope: the rest of the suite gets the real temp folder back (pytest's is private to root)."""
    import tempfile
    folder = str(tmp_path_factory.mktemp("quadrants-tmp"))
    old_env, old_dir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = folder, folder
    yield
    tempfile.tempdir = old_dir
    if old_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = old_env


@pytest.fixture(scope="module")
def forked_bridge():
    """The bridge's runs in this test file fork from a server that imported Quadrants once
    (tests/quadrants/_forked_bridge.py): `pytestmark = pytest.mark.usefixtures("forked_bridge")`."""
    with _forked_bridge.forked_bridge() as server:
        yield server


@pytest.fixture
def real_bridge_child():
    """This test's bridge runs start the real child, as a user's run does (one test per forked file)."""
    with _forked_bridge.real_bridge_child():
        yield
