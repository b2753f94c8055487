"""Where the suite's CPU goes, test by test: loaded by tests/conftest.py only when QDX_TEST_CPU_LOG names a
folder (benchmarks/suite_cpu_by_test.py reads what it writes).

A test's CPU is not only its process's: the CLI and Quadrants children it waits for land in RUSAGE_CHILDREN,
but helpers forked from the forkserver (qdexplorer/machine/helper_start.py) are reaped by the server, and Ray's
processes by Ray, so neither shows in any rusage of the test's process. One sampler process (started by the
first pytest process that is not an xdist worker) reads every process's CPU from /proc twice a second, with its
parent, so that what a worker's descendants spent in a test's span is put on that test afterwards.

Each test process writes one JSON line a test to <worker>.jsonl: the wall and CPU (self, waited children) of
setup, call and teardown, the span's start and end (time.time()), the pid, and the test's fixture names.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

import pytest

_PHASES = ("setup", "call", "teardown")


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


class CpuLog:
    def __init__(self, folder: str, worker: str) -> None:
        self._path = os.path.join(folder, f"{worker}.jsonl")
        self._worker = worker
        self._row: dict = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._row = {"test": item.nodeid, "worker": self._worker, "pid": os.getpid(), "start": time.time(),
                     "fixtures": sorted(getattr(item, "fixturenames", ())),
                     "long": item.get_closest_marker("long") is not None}
        yield
        self._row["end"] = time.time()
        with open(self._path, "a") as f:   # a line a test, so that a crashed worker leaves what it ran
            f.write(json.dumps(self._row) + "\n")

    def _phase(self, name: str):
        wall, me, kids = time.perf_counter(), _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        yield
        self._row[name] = [round(time.perf_counter() - wall, 4), round(_cpu(resource.RUSAGE_SELF) - me, 4),
                           round(_cpu(resource.RUSAGE_CHILDREN) - kids, 4)]

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item):
        yield from self._phase("setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        yield from self._phase("call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item, nextitem):
        yield from self._phase("teardown")


def register(config) -> None:
    folder = os.environ["QDX_TEST_CPU_LOG"]
    os.makedirs(folder, exist_ok=True)
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is None:   # a session's first process (the xdist controller, or a run without -n): it may run tests
        worker = f"main-{os.getpid()}"
        open(os.path.join(folder, f"primary-{os.getpid()}"), "w").close()
        try:
            os.close(os.open(os.path.join(folder, "sampler.lock"), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            pass
        else:
            # through a shell that leaves it behind: no child of ours outlives the session unwaited
            subprocess.run(["sh", "-c", 'setsid "$0" "$1" "$2" </dev/null >/dev/null 2>&1 &',
                            sys.executable, __file__, folder], check=True)
    config.pluginmanager.register(CpuLog(folder, worker), "qdx_cpu_log")


# --- the sampler (its own process: a thread would take the GIL from the tests of the process it lives in)

def _stat(pid: str) -> tuple[int, int, int] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(b")") + 2:].split()   # the name may hold spaces and parentheses
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19])   # ppid, utime+stime, starttime


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()[:300]
    except OSError:
        return ""


def _busy() -> int:
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v) - v[3] - v[4]   # all but idle and iowait


def _primaries_alive(folder: str) -> tuple[int, int]:
    pids = [int(n[8:]) for n in os.listdir(folder) if n.startswith("primary-")]
    return len(pids), sum(os.path.exists(f"/proc/{p}") for p in pids)


def sample(folder: str, period: float = 0.5) -> None:
    """Every period: each process whose CPU moved (pid, ppid, ticks so far), new processes' command lines,
    and the machine's busy ticks. Ends 3 s after the last pytest process that registered itself has gone."""
    seen: dict[tuple[int, int], int] = {}
    gone_since = None
    with open(os.path.join(folder, "sampler.jsonl"), "w", buffering=1) as out:
        out.write(json.dumps({"hz": os.sysconf("SC_CLK_TCK"), "self": os.getpid()}) + "\n")
        while True:
            now, rows, new = time.time(), [], []
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                st = _stat(pid)
                if st is None:
                    continue
                ppid, ticks, start = st
                key = (int(pid), start)
                if key not in seen:
                    new.append([int(pid), start, ppid, _cmdline(pid)])
                if seen.get(key) != ticks:
                    seen[key] = ticks
                    rows.append([int(pid), start, ppid, ticks])
            out.write(json.dumps({"t": round(now, 3), "busy": _busy(), "new": new, "p": rows}) + "\n")
            registered, alive = _primaries_alive(folder)
            if registered and not alive:
                gone_since = gone_since or now
                if now - gone_since > 3:
                    return
            time.sleep(max(0.0, period - (time.time() - now)))


if __name__ == "__main__":
    sample(sys.argv[1])
