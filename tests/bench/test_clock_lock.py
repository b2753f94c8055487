"""`--lock-clocks`: a refusal is reported in one clear line, and the lock is reset on every way out,
a killed process included (its guard resets it). Off the GPU, a stand-in libnvidia-ml built from C
records what the driver would be asked; on a GPU (cuda-marked) the real clock is read back."""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from qdexplorer.bench.clock_lock import NVML_ERROR_NO_PERMISSION, ClockLock, ClockLockRefused, held
from qdexplorer.cli.common import locked_clocks
from tests._cli import run_cli

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FAKE_NVML = r"""
#include <stdio.h>
#include <stdlib.h>
static void say(const char *what, unsigned a, unsigned b) {
    FILE *f = fopen(getenv("FAKE_NVML_LOG"), "a"); fprintf(f, "%s %u %u\n", what, a, b); fclose(f);
}
int nvmlInit_v2(void) { return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **h) { *h = (void *)1; return 0; }
int nvmlDeviceGetDefaultApplicationsClock(void *h, int kind, unsigned *mhz) { *mhz = 1755; return 0; }
int nvmlDeviceSetGpuLockedClocks(void *h, unsigned lo, unsigned hi) {
    const char *rc = getenv("FAKE_NVML_RC"); int r = rc ? atoi(rc) : 0;
    say(r ? "refused" : "lock", lo, hi); return r;
}
int nvmlDeviceResetGpuLockedClocks(void *h) { say("reset", 0, 0); return 0; }
const char *nvmlErrorString(int rc) { return rc == 4 ? "Insufficient Permissions" : "Unknown Error"; }
"""


@pytest.fixture(scope="module")
def fake_nvml(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is needed to build the stand-in NVML")
    d = tmp_path_factory.mktemp("nvml")
    (d / "fake.c").write_text(FAKE_NVML)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(d / "libnvidia-ml.so.1"), str(d / "fake.c")], check=True)
    return d


def _pythonpath() -> str:
    """Our checkout first, then whatever the caller's PYTHONPATH held (the GPU machine keeps the
    dependencies there)."""
    return os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)


def _child(fake_nvml, log, code, rc=0):
    env = dict(os.environ, PYTHONPATH=_pythonpath(), LD_LIBRARY_PATH=str(fake_nvml), FAKE_NVML_LOG=str(log),
               FAKE_NVML_RC=str(rc))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=60)


def _lines(log, want, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = log.read_text().split("\n") if log.exists() else []
        if len([g for g in got if g]) >= want:
            break
        time.sleep(0.05)
    return [g for g in (log.read_text().split("\n") if log.exists() else []) if g]


def test_the_lock_is_reset_after_ctrl_c_and_reported_while_held(fake_nvml, tmp_path):
    log = tmp_path / "log"
    p = _child(fake_nvml, log, """
        from qdexplorer.bench.clock_lock import ClockLock, held
        try:
            with ClockLock():
                print(held())
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            print(held())
    """)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["{'locked_sm': 1755}", "{}"]   # the default applications clock
    time.sleep(0.3)   # the guard, told it was released, must not reset a second time
    assert _lines(log, 2) == ["lock 1755 1755", "reset 0 0"]


def test_a_killed_process_has_its_lock_reset_by_its_guard(fake_nvml, tmp_path):
    log = tmp_path / "log"
    p = _child(fake_nvml, log, """
        import os, signal
        from qdexplorer.bench.clock_lock import ClockLock
        with ClockLock(mhz=1410):
            os.kill(os.getpid(), signal.SIGKILL)
    """)
    assert p.returncode == -signal.SIGKILL
    assert _lines(log, 2) == ["lock 1410 1410", "reset 0 0"]


def test_a_refusal_names_the_cause_and_the_run_goes_on_unlocked(fake_nvml, tmp_path):
    log = tmp_path / "log"
    p = _child(fake_nvml, log, """
        import argparse
        from qdexplorer.cli.common import locked_clocks
        with locked_clocks(argparse.Namespace(lock_clocks=1500), {"cuda"}):
            print("timed")
    """, rc=NVML_ERROR_NO_PERMISSION)
    assert p.returncode == 0 and p.stdout.strip() == "timed", p.stderr
    assert "Insufficient Permissions" in p.stderr and "needs root" in p.stderr and "nvidia-smi -lgc 1500,1500" in \
        p.stderr and "timing with the clocks unlocked" in p.stderr
    assert _lines(log, 1) == ["refused 1500 1500"]   # refused: nothing to reset


class _Lib:
    """NVML as ctypes shows it, for the lock's own logic: returns codes, records calls."""
    def __init__(self, rc=0):
        self.rc, self.calls = rc, []

    def nvmlDeviceGetHandleByIndex_v2(self, i, h):
        return 0

    def nvmlDeviceSetGpuLockedClocks(self, h, lo, hi):
        self.calls.append(("lock", lo.value, hi.value))
        return self.rc

    def nvmlDeviceResetGpuLockedClocks(self, h):
        self.calls.append(("reset",))
        return 0


def test_an_error_inside_the_block_still_resets_the_lock():
    lib = _Lib()
    with pytest.raises(RuntimeError):
        with ClockLock(mhz=1200, lib=lib):
            assert held() == {"locked_sm": 1200}
            raise RuntimeError("a workload crashed")
    assert lib.calls == [("lock", 1200, 1200), ("reset",)] and held() == {}
    with pytest.raises(ClockLockRefused, match="needs root"):
        with ClockLock(mhz=1200, lib=_Lib(rc=NVML_ERROR_NO_PERMISSION)):
            pass
    assert held() == {}


def test_lock_clocks_on_the_cpu_backend_is_ignored_with_a_word(capsys):
    with locked_clocks(argparse.Namespace(lock_clocks="default"), {"cpu"}):
        pass
    assert "CPU backend has no GPU clock to lock; ignored" in capsys.readouterr().err
    p = run_cli("bench", "--lock-clocks", "50", "--no-save")
    assert p.returncode == 2 and "--lock-clocks: must be a whole number of MHz from 100 to 10000" in p.stderr


@pytest.mark.cuda
def test_locked_clocks_hold_while_timing_and_are_reset_after(tmp_path):
    """On a GPU: bench with --lock-clocks at a low clock; the busy clock while timing is that clock,
    and once the command has ended a busy GPU boosts past it again. Where the driver refuses (no
    root), the refusal is reported and the run still completes."""
    from qdexplorer.bench.clocks import NvmlClocks
    import json
    lock = 1005
    p = subprocess.run([sys.executable, "-m", "qdexplorer.cli", "bench", "--backend", "cuda", "--no-save", "--json",
                        "--repeat", "20", "--lock-clocks", str(lock), "--workload", "saxpy_1m"],
                       env=dict(os.environ, PYTHONPATH=_pythonpath()), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    clocks = json.loads(p.stdout)["context"]["clocks_mhz"]
    if "refused" in p.stderr:
        assert "--lock-clocks:" in p.stderr and "timing with the clocks unlocked" in p.stderr
        assert "locked_sm" not in clocks
        pytest.skip(f"the driver refused to lock clocks here: {p.stderr.strip().splitlines()[-1]}")
    assert clocks["locked_sm"] == lock
    if clocks.get("busy_samples"):
        assert abs(clocks["sm"] - lock) <= 0.05 * lock, clocks
    read = NvmlClocks()
    # after the command: nothing holds the clock, so a busy GPU (a short matmul loop) goes above it
    cupy = pytest.importorskip("cupy")   # a busy loop that is not ours
    a = cupy.ones((4096, 4096), dtype=cupy.float32)
    seen = []
    end = time.monotonic() + 3
    while time.monotonic() < end:
        for _ in range(20):
            a = a @ a * 1e-4
        r = read()
        if r is not None and r.busy:
            seen.append(r.sm)
    cupy.cuda.Device().synchronize()
    assert seen and max(seen) > lock * 1.2, seen
