"""The Quadrants bridge's program runs (`run_program`: child.py under Quadrants) forked from a server that
has imported Quadrants and NumPy once (tests/_forked_python.py), for the test files that run many of them.

Each run cost a fresh interpreter ~0.5 s of CPU to import Quadrants before ~0.2 s of work (issue 42).
Only the start is replaced: `process_group.run_group` runs as for a user (the reaper watcher, the
process group killed on timeout and at exit, the orphan search, the notes), with `subprocess.Popen`
forking the child from the server (tests/_forked_python.popen_through). The child is child.py run as
`python child.py ...` would run it, from the state `import quadrants` leaves: Quadrants reads some
variables while being imported, so a run whose environment differs from the server's in any of those
(`IMPORT_TIME`) is a real child. The bridge's own QD_DUMP_IR, QD_LOAD_IR and QUADRANTS_LOAD_PTX are
read later (by qd.init and codegen: quadrants/lang/misc.py, the LLVM codegen, the CUDA JIT), so they
may differ; the dump and QD_LOAD_IR tests pass forked. Quadrants' version banner, printed at its import,
is printed by each child as by a fresh one. The server has one thread when it forks (test_forked_bridge
checks), and nothing of Quadrants' runtime starts before qd.init, which only the child calls.

A test file turns it on with `forked_bridge` (module scope, so that its module-scoped runs fork too); a
test that asks for `real_bridge_child` starts the real child, as a user's run does: each file keeps one.
"""
from __future__ import annotations

import contextlib
import os
import subprocess

import pytest

from tests import _forked_python

# Variables read while Quadrants (and NumPy, OpenBLAS, LLVM) are imported or loaded: a request must have
# the server's. Prefixes; the names in AFTER_IMPORT are exempt.
IMPORT_TIME = ("PYTHON", "QD_", "QUADRANTS_", "ENABLE_QUADRANTS", "TI_", "TAICHI", "NPY_", "NUMPY_", "OPENBLAS",
               "OMP_", "MKL_", "GOTO", "LD_", "CUDA", "LLVM", "COLORAMA", "TERM")
AFTER_IMPORT = frozenset({"QD_DUMP_IR", "QD_LOAD_IR", "QUADRANTS_LOAD_PTX"})


def read_at_import(name: str) -> bool:
    return name.startswith(IMPORT_TIME) and name not in AFTER_IMPORT


@contextlib.contextmanager
def forked_bridge():
    """While open, the bridge's runs fork from one server (yielded; None where forking is off)."""
    from qdexplorer.quadrants import process_group
    # run_program's environment less what it sets per run (PYTHONUNBUFFERED it sets for every run)
    env = {k: v for k, v in os.environ.items() if k not in AFTER_IMPORT} | {"PYTHONUNBUFFERED": "1"}
    server = _forked_python.Server(["numpy", "quadrants"], env, same_vars=read_at_import, replay_import_output=True)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(process_group, "subprocess", _forked_python.popen_through(server))
            yield server if server.proc is not None else None
    finally:
        server.close()


@contextlib.contextmanager
def real_bridge_child():
    """The bridge starts its child with the real `subprocess.Popen` (inside `forked_bridge`)."""
    from qdexplorer.quadrants import process_group
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(process_group, "subprocess", subprocess)
        yield
