"""Helpers fork from one server (machine/helper_start.py) yet see their starter's environment as it is
when they start, as spawned ones did: ptxas, libdevice and the dump folders are found through it."""
import multiprocessing as mp
import os
import sys

import pytest

from qdexplorer.compiler.pool import CompilePool
from qdexplorer.machine.helper_start import helper_context

FORKSERVER = "forkserver" in mp.get_all_start_methods()


@pytest.mark.skipif(not FORKSERVER, reason="no forkserver on this platform (spawn, as before)")
def test_helpers_fork_from_a_server_that_imported_the_compile_stages():
    assert helper_context().get_start_method() == "forkserver"


def test_the_frozen_app_keeps_spawn(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert helper_context().get_start_method() == "spawn"


def test_a_helper_sees_the_environment_of_when_it_started_not_the_servers(monkeypatch):
    first = CompilePool(1)
    try:
        first.warm()   # the server (where there is one) starts now, with this environment
    finally:
        first.close()
    monkeypatch.setenv("QDX_HELPER_PROBE", "set after the server started")
    monkeypatch.delenv("QDEXPLORER_LIBDEVICE", raising=False)
    pool = CompilePool(1)
    try:
        ex = pool._executor()
        assert ex.submit(os.getenv, "QDX_HELPER_PROBE").result(60) == "set after the server started"
        assert ex.submit(os.getenv, "QDEXPLORER_LIBDEVICE").result(60) is None
    finally:
        pool.close()
