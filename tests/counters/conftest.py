"""A fake `ncu`: a real executable on PATH that behaves as Nsight Compute does in one situation.

FAKE_NCU_MODE picks it: denied (ERR_NVGPUCTRPERM), nokernels, hang, garbage (writes a report that
is not one), binary (output that is not UTF-8, no report), good (writes the project's own saxpy report, made on an H200 by the real ncu from the
demo's saxpy task). Each call is appended to FAKE_NCU_LOG, so a test can see whether ncu ran.
No GPU is needed: the fake stands in for ncu and the GPU, so GPU detection is told one is there.
"""
import os
import stat
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
FIXTURE = DATA / "saxpy_full.ncu-rep"
TASK = "saxpy_kernel_0_range_for"

FAKE = r'''#!{python}
import os, sys, time, shutil
args = sys.argv[1:]
if os.environ.get("FAKE_NCU_MODE") == "binary":   # output that is not UTF-8 (a Latin-1 locale, a broken build)
    sys.stdout.buffer.write(b"==PROF== Connected \xff\xfe\x80 caf\xe9\n" if args[:1] != ["--version"] else
                            b"NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 0) \xe9\n")
    sys.stdout.flush()
    sys.exit(0 if args[:1] == ["--version"] else 1)
if args[:1] == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 0) (fake)")
    sys.exit(0)
with open(os.environ["FAKE_NCU_LOG"], "a") as f:
    f.write(" ".join(args) + "\n")
out = args[args.index("-o") + 1] + ".ncu-rep"
mode = os.environ.get("FAKE_NCU_MODE", "good")
print("==PROF== Connected to process 4242 (/usr/bin/python3)")
if mode == "denied":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
          "Counters on the target device 0. For instructions on enabling permissions and to get more "
          "information see https://developer.nvidia.com/ERR_NVGPUCTRPERM")
    sys.exit(1)
if mode == "nokernels":
    print("==PROF== Disconnected from process 4242\n==WARNING== No kernels were profiled.\n"
          "Available Kernels:\n1. copy_kernel_0_range_for")
    sys.exit(0)
if mode == "hang":
    time.sleep(120)
if mode == "garbage":
    with open(out, "wb") as f:
        f.write(b"this is not a report" * 100)
    sys.exit(0)
print('==PROF== Profiling "saxpy_kernel_0_range_for": 0%....50%....100% - 20 passes')
shutil.copyfile(os.environ["FAKE_NCU_REPORT"], out)
print("==PROF== Report: " + out)
'''


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    """Put the fake ncu first on PATH; return a setter for its mode and a reader of its calls."""
    pytest.importorskip("ncu_report")
    from qdexplorer.counters import probe
    from qdexplorer.runtime.cuda import detect
    bindir = tmp_path / "bin"
    bindir.mkdir()
    ncu = bindir / "ncu"
    ncu.write_text(FAKE.replace("{python}", sys.executable))
    ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "ncu.log"
    log.write_text("")
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_NCU_LOG", str(log))
    monkeypatch.setenv("FAKE_NCU_REPORT", str(FIXTURE))
    monkeypatch.delenv("QDEXPLORER_NCU", raising=False)
    monkeypatch.setenv("QDEXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(detect, "_status", [detect.CudaStatus(True, name="fake GPU (the fake ncu stands in)",
                                                             arch="sm_90")])
    probe.forget()

    class Fake:
        path = ncu

        def mode(self, m: str) -> None:
            monkeypatch.setenv("FAKE_NCU_MODE", m)

        def calls(self) -> list[str]:
            return [ln for ln in log.read_text().splitlines() if ln]
    yield Fake()
    probe.forget()
