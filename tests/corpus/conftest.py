"""Both sides of a corpus program forked from servers that have imported what they import once (Quadrants
for Quadrants' side, the language for ours: tests/_forked_python.py), rather than a fresh interpreter of
~0.3-0.6 s of imports per side and run. Tests that use `forked` get it; the others run real children."""
import os

import pytest

from tests import _forked_python
from tests.corpus._load import corpus

C = corpus()


@pytest.fixture(scope="module")   # ended with its file: nothing idle for the rest of the run
def corpus_servers():
    env = dict(os.environ, PYTHONHASHSEED="0")   # as run_side starts both sides
    ours_env = dict(env, PYTHONPATH=os.pathsep.join([str(C.ROOT)] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p]))
    theirs = _forked_python.Server(["numpy", "quadrants"], env)
    ours = _forked_python.Server(["numpy", "qdexplorer.lang", "qdexplorer.lang.compat.module_paths",
                                  "qdexplorer.ir.errors"], ours_env)
    yield theirs, ours
    theirs.close()
    ours.close()


@pytest.fixture
def forked(corpus_servers, monkeypatch):
    theirs, ours = corpus_servers
    stand = _forked_python.subprocess_through(lambda cmd: ours if cmd[1:3] == ["-c", C.OURS_CHILD] else theirs)
    monkeypatch.setattr(C, "subprocess", stand)
