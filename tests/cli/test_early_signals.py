"""SIGTERM to a command at any moment gives 143, not death by signal (issue 33).

The CLI's own handler is installed once the command line is parsed, after about 3 s of imports on a
loaded 2-core machine; `devices --cluster local` signalled then died with -15 in 1 of 5 tries. And
Ray's `ray.shutdown` put SIGTERM back to the default action behind Python's back, so a signal while a
command ended its cluster killed it too. These tests watch the process's signal mask in /proc.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qdexplorer import early_signals

from .test_cli import ROOT

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")


def _sigterm_caught(pid: int) -> bool | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    mask = int(next(ln for ln in status.splitlines() if ln.startswith("SigCgt")).split()[1], 16)
    return bool(mask >> (signal.SIGTERM - 1) & 1)


def _mapped(pid: int, name: str) -> bool:
    try:
        return name in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_sigterm_while_the_command_still_imports_exits_143():
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "info"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=ROOT))
    deadline = time.monotonic() + 120
    while not _sigterm_caught(p.pid) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    # caught before the imports (NumPy's core library is mapped by the first of them), not after them
    early = not _mapped(p.pid, "_multiarray_umath")
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=120)
    assert early, "SIGTERM was first caught after the CLI's imports"
    assert p.returncode == 128 + signal.SIGTERM and b"Traceback" not in err, (p.returncode, err[-500:])


@pytest.mark.parametrize("argv,expected", [
    (["-m", "devices"], True),                                       # python -m qdexplorer.cli, while it is found
    (["/venv/bin/qdexplorer", "devices"], True),                     # the console script
    (["/src/qdexplorer/__main__.py", "devices"], True),              # python -m qdexplorer
    (["/src/tests/run.py"], False), (["/venv/bin/pytest"], False), (["-c"], False), ([], False),
])
def test_only_the_command_holds_signals_early(argv, expected):
    assert early_signals.started_as_the_command(argv) is expected


def test_importing_qdexplorer_as_a_library_changes_no_handler():
    code = ("import signal, qdexplorer, qdexplorer.cli; "
            "print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, signal.getsignal(signal.SIGHUP) is signal.SIG_DFL)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.stdout.split() == ["True", "True"], out.stderr


def test_ray_is_told_to_leave_sigterm_alone_before_it_is_imported():
    code = ("import os, sys, qdexplorer.remote; "
            "print('ray' in sys.modules, os.environ.get('RAY_DISABLE_FAILURE_SIGNAL_HANDLER'))")
    env = {k: v for k, v in os.environ.items() if k != "RAY_DISABLE_FAILURE_SIGNAL_HANDLER"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(env, PYTHONPATH=ROOT))
    assert out.stdout.split() == ["False", "1"], out.stderr


@pytest.mark.cluster_faults
def test_sigterm_stays_the_commands_while_its_cluster_ends():
    """Ray's shutdown set SIGTERM to the default action for its last 1-2 s (seen in SigCgt)."""
    pytest.importorskip("ray")
    p = subprocess.Popen([sys.executable, "-m", "qdexplorer.cli", "devices", "--cluster", "local"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONPATH=ROOT))
    seen = []
    while p.poll() is None:
        state = _sigterm_caught(p.pid)
        if state is not None and (not seen or seen[-1] != state):
            seen.append(state)
        time.sleep(0.005)
    assert p.returncode == 0, p.stdout.read()[-500:]
    assert seen[-1] is True and seen.count(False) <= 1, seen    # default only before the first import
