"""Helper processes die with their parent; SIGTERM cleans up like Ctrl-C."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.cli.test_cli import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads children from /proc (Linux)")

SPIN = textwrap.dedent("""\
    import numpy as np
    import qdexplorer.lang as qd

    @qd.kernel
    def spin(x: qd.types.ndarray(dtype=qd.i32, ndim=1)):
        for i in range(x.shape[0]):
            while x[i] >= 0:
                x[i] = x[i] + 0

    @qd.workload(spin)
    def hang(rng):
        return dict(x=np.zeros(4, np.int32))
    """)


def children(pid):
    out = set()
    for t in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(c) for c in (t / "children").read_text().split()}
        except OSError:
            pass
    return out


def descendants(pid):
    out = set()
    for k in children(pid):
        out |= {k} | descendants(k)
    return out


def helpers(pid):
    """The helper processes `pid` started: spawned children, or those forked by its forkserver
    (machine/helper_start.py: the server itself is not one)."""
    out = set()
    for k in children(pid):
        cmd = _cmdline(k)
        if "spawn_main" in cmd:
            out.add(k)
        elif "multiprocessing.forkserver" in cmd:
            out |= children(k)
    return out


def alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(cond, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def start(args, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT, QDEXPLORER_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


BUSY_POOL = textwrap.dedent("""\
    import time
    from qdexplorer.compiler.pool import CompilePool
    if __name__ == "__main__":
        pool = CompilePool(2)
        ex = pool._executor()
        jobs = [ex.submit(time.sleep, 120) for _ in range(2)]   # workers busy, as in a long cold compile
        time.sleep(120)
    """)


def test_killed_app_leaves_no_busy_pool_workers(tmp_path):
    script = tmp_path / "busy.py"
    script.write_text(BUSY_POOL)
    p = subprocess.Popen([sys.executable, str(script)], env=dict(os.environ, PYTHONPATH=ROOT))
    kids = set()
    try:
        assert wait_for(lambda: len(helpers(p.pid)) >= 2, 120)
        time.sleep(2)  # both workers are inside their job now
        kids = descendants(p.pid)
        p.kill()
        p.wait(10)
        assert wait_for(lambda: not any(alive(k) for k in kids), 30), [_cmdline(k) for k in kids if alive(k)]
    finally:
        p.kill()
        for k in kids:  # never leave our own orphans behind, even when the test fails
            if alive(k):
                os.kill(k, signal.SIGKILL)


def test_sigterm_stops_a_run_and_its_device_worker(tmp_path):
    (tmp_path / "k.py").write_text(SPIN)
    p = start(["run", str(tmp_path), "--timeout", "600"], tmp_path)
    kids = set()
    try:
        # the device worker is the child still alive once compiling is over; give the launch a moment
        assert wait_for(lambda: helpers(p.pid), 120)
        time.sleep(3)
        kids = descendants(p.pid)
        p.send_signal(signal.SIGTERM)
        p.wait(20)
        assert p.returncode == 128 + signal.SIGTERM and "Traceback" not in p.stderr.read()
        assert wait_for(lambda: not any(alive(k) for k in kids), 10), [k for k in kids if alive(k)]
    finally:
        p.kill()
        _reap(kids)


def _reap(kids):
    for k in kids:  # never leave our own orphans behind, even when the test fails
        if alive(k):
            os.kill(k, signal.SIGKILL)


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_sigkilled_run_leaves_no_spinning_device_worker(tmp_path):
    (tmp_path / "k.py").write_text(SPIN)
    p = start(["run", str(tmp_path), "--timeout", "600"], tmp_path)
    kids = set()
    try:
        assert wait_for(lambda: helpers(p.pid), 120)
        time.sleep(3)
        kids = descendants(p.pid)
        p.kill()
        p.wait(10)
        assert wait_for(lambda: not any(alive(k) for k in kids), 10), [k for k in kids if alive(k)]
    finally:
        p.kill()
        _reap(kids)
