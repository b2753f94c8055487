"""Build and run the ncu command line for one task, and say what became of it in one line.

ncu runs the child (`python -m qdexplorer.counters.child`) with a kernel filter naming the
task exactly and `-c 1`. Its own process group is killed at the time limit, so a hung replay
never outlives the request. The outcome is classified from ncu's exit status, its output and
the report it left: each failure is one state with one message, never a traceback.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..compiler.safe_files import output_file
from . import probe as P
from .presets import METRICS, Preset

TIMEOUT_S = 180.0
ERROR_PREFIX = "qdexplorer-counters-child: error: "   # how the child (child.py) starts the one line of its error

OK, NO_KERNELS, TIMEOUT, FAILED = "ok", "no_kernels", "timeout", "failed"


@dataclass
class Outcome:
    state: str
    message: str = ""
    passes: int = 0
    seconds: float = 0.0
    output: str = ""


def ncu_prefix(ncu: str, task: str, preset: Preset, report: Path, nvtx: bool) -> list[str]:
    """ncu and its options, to be followed by the command it profiles (our child, or a Quadrants
    program in the bridge): the task's first launch only, into `report`."""
    output_file(report, "ncu report")   # ncu writes it by name (-f: over what is there)
    argv = [ncu, "--target-processes", "all", "-k", f"regex:^{re.escape(task)}$", "-c", "1", "-f",
            "-o", str(report.with_suffix(""))]
    if nvtx:
        argv += ["--nvtx", "--nvtx-include", f"qdexplorer@{task}/"]
    for s in preset.sections:
        argv += ["--section", s]
    argv += ["--metrics", ",".join(METRICS)]
    if "SourceCounters" in preset.sections:
        argv += ["--import-source", "yes"]
    return argv


def ncu_argv(ncu: str, task: str, preset: Preset, report: Path, request: Path, nvtx: bool) -> list[str]:
    return ncu_prefix(ncu, task, preset, report, nvtx) + [sys.executable, "-m", "qdexplorer.counters.child",
                                                          str(request)]


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""), PYTHONUNBUFFERED="1")


def run_ncu(argv: list[str], report: Path, timeout: float = TIMEOUT_S) -> Outcome:
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", env=_env(),
                                start_new_session=True)
    except OSError as e:
        return Outcome(FAILED, f"ncu could not be started: {e.strerror or e}")
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        out, _ = proc.communicate()
        return Outcome(TIMEOUT, f"ncu did not finish within {timeout:g} s and was stopped (a hang, or a very "
                                f"long kernel replayed many times: try the quick preset)", output=out or "",
                       seconds=time.perf_counter() - t0)
    return classify(proc.returncode, out or "", report, time.perf_counter() - t0)


def classify(rc: int, out: str, report: Path, seconds: float = 0.0) -> Outcome:
    """What ncu's exit status, output and report say, as one state and one line."""
    m = re.search(r"- (\d+) passes", out)
    passes = int(m[1]) if m else 0
    if "ERR_NVGPUCTRPERM" in out:
        state = P.CONTAINER if (P.in_container() and P.admin_only() is False) else P.RESTRICTED
        return Outcome(state, P.MESSAGES[state], output=out, seconds=seconds)
    child = [ln[len(ERROR_PREFIX):] for ln in out.splitlines() if ln.startswith(ERROR_PREFIX)]
    if child:
        return Outcome(FAILED, f"the task did not run under ncu: {child[-1]}", output=out, seconds=seconds)
    if "No kernels were profiled" in out:
        avail = re.findall(r"^\s*\d+\.\s+(\S+)", out.split("Available Kernels:", 1)[1], re.M) \
            if "Available Kernels:" in out else []
        seen = f" (it launched: {', '.join(avail[:5])})" if avail else ""
        return Outcome(NO_KERNELS, f"ncu profiled no kernel: the task's launch was not seen{seen}", output=out,
                       seconds=seconds)
    errors = [ln.split("==ERROR==", 1)[1].strip() for ln in out.splitlines() if "==ERROR==" in ln]
    if rc != 0 or not report.is_file():
        why = errors[-1] if errors else (out.strip().splitlines() or [f"exit status {rc}"])[-1]
        return Outcome(FAILED, f"ncu failed: {why}", output=out, seconds=seconds)
    return Outcome(OK, "", passes, seconds, out)
