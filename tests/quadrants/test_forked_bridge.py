"""tests/quadrants/_forked_bridge.py, which the bridge's test files run their Quadrants programs with: a forked
run is the real child's run (output with Quadrants' banner, kernels, launches, the dump), from a server with
one thread; a run whose environment Quadrants would read differently at its import is a real child."""
import os
import re
import sys

import pytest

from qdexplorer.quadrants import process_group, run_program

from . import _forked_bridge
from .conftest import needs_quadrants, program

pytestmark = needs_quadrants


def _seen(run):
    """What a run shows, less what differs between two runs of anything (log lines' times and pids)."""
    stderr = re.sub(r"^\[(\w) [\d/]+ [\d:.]+ \d+\]", r"[\1]", run.stderr.replace(run.dump_dir, "DUMP"), flags=re.M)
    return (run.returncode, run.error, run.stdout, stderr, run.arch, run.init_calls, run.warnings,
            {t: len(ms) for t, ms in run.launches.items()},
            [(k.func, [(t.name, sorted(t.files)) for t in k.tasks]) for k in run.kernels])


def test_a_forked_run_is_the_real_childs(tmp_path):
    real = run_program(program("demo_kernels.py"), ["64", "2"], arch="cpu", dump_dir=tmp_path / "real")
    with _forked_bridge.forked_bridge() as server:
        if server is None:
            pytest.skip("forking is off here (QDX_TEST_FORK_SUBPROCESS=1 or no fork)")
        assert len(os.listdir(f"/proc/{server.proc.pid}/task")) == 1   # no thread to be lost in the fork
        popen, start, starts = process_group.subprocess.Popen, server.start, []
        server.start = lambda *a: starts.append(a[0]) or start(*a)
        forked = run_program(program("demo_kernels.py"), ["64", "2"], arch="cpu", dump_dir=tmp_path / "forked")
        assert len(starts) == 1 and starts[0][1].endswith("child.py")
        # the bridge's own variables are read by qd.init and codegen; QD_LOG_LEVEL and the banner's by the import
        env = dict(server.env, QD_DUMP_IR="1", QD_LOAD_IR="1", QUADRANTS_LOAD_PTX="1")
        assert server.forkable([sys.executable, "child.py"], env)
        for name in ("QD_LOG_LEVEL", "ENABLE_QUADRANTS_HEADER_PRINT"):
            assert not server.forkable([sys.executable, "child.py"], dict(env, **{name: "0" + env.get(name, "")}))
    assert popen.__name__ == "popen" and process_group.subprocess.Popen is not popen
    assert real.ok and _seen(forked) == _seen(real)
    assert real.stdout.startswith("[Quadrants] version ")
