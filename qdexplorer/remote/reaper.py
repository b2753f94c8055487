"""The watcher of what qdexplorer starts: `python reaper.py FOLDER MARK [VARIABLE]` (run by path),
its stdin a pipe from the qdexplorer that started a private cluster (local_cluster.py) or a
Quadrants program (quadrants/process_group.py).

It imports nothing but the standard library and runs in a session of its own, so no signal to the
terminal's process group or to qdexplorer reaches it first. When the pipe closes (qdexplorer
ended, by any means, SIGKILL included), it ends every process of this user whose environment
holds VARIABLE=<mark> (default QDEXPLORER_PRIVATE_CLUSTER): SIGTERM, then SIGKILL to those still
there after GRACE_S, then deletes FOLDER (token, sockets, logs; `-` for none).
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import time

MARK = "QDEXPLORER_PRIVATE_CLUSTER"
GRACE_S = 2.0


def _pids() -> list[int]:
    """Every process /proc lists now."""
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _proc_file(pid: int, name: str) -> bytes | None:
    """`/proc/<pid>/<name>`, or None where it cannot be read (the process ended, or is another user's)."""
    try:
        with open(f"/proc/{pid}/{name}", "rb") as fh:
            return fh.read()
    except OSError:
        return None


def marked(mark: str, var: str = MARK) -> list[int]:
    """Processes whose environment holds `var`=`mark` (only this user's are readable; the rest are
    skipped)."""
    needle = f"{var}={mark}".encode()
    me = os.getpid()
    return [pid for pid in _pids() if pid != me and needle in (_proc_file(pid, "environ") or b"").split(b"\0")]


def holding(folder: str, spare: frozenset[int] = frozenset()) -> list[int]:
    """Processes with a file open under `folder` (the cluster's private folder: its sockets and logs).
    Ray's agents (`ray::DashboardAgent`, `ray::RuntimeEnvAgent`) write their title over their own
    environment (setproctitle), so the mark is gone from it; their open logs in the folder are not.
    Seen: the head killed, both ran on under PID 1 for over a minute with no mark to find. `spare`:
    the qdexplorer that started this watcher, which holds the folder's files too while it stops its
    cluster (killed here, the command ended -9 instead of with its status)."""
    if folder in ("", "-"):
        return []
    root = os.path.realpath(folder) + os.sep
    me = os.getpid()
    out = []
    for pid in _pids():
        if pid == me or pid in spare:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(root):
                    out.append(pid)
                    break
            except OSError:
                continue
    return out


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (zombies included: they still need reaping)."""
    out = []
    for child in _pids():
        stat = _proc_file(child, "stat")
        if stat is None:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(child)
    return out


def describe(pid: int) -> str:
    """`pid 123 (sleep 600)`: its command line, short, for a message."""
    raw = _proc_file(pid, "cmdline")
    cmd = "?" if raw is None else raw.replace(b"\0", b" ").decode(errors="replace").strip()
    return f"pid {pid} ({cmd[:80]})"


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def reap(folder: str, mark: str, grace_s: float = GRACE_S, var: str = MARK,
         spare: frozenset[int] = frozenset()) -> int:
    """End the marked processes, and those holding files in `folder`; returns how many had to be ended."""
    def found() -> list[int]:
        return sorted(set(marked(mark, var)) | set(holding(folder, spare)))
    pids = found()
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and found():
        time.sleep(0.1)
    _signal(found(), signal.SIGKILL)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and found():   # zombies of a dead parent are reaped by init
        time.sleep(0.05)
    if folder != "-":
        shutil.rmtree(folder, ignore_errors=True)
    return len(pids)


def start(folder: str, mark: str, var: str = MARK):
    """The watcher, started: a Popen whose stdin is the pipe (close it, or end, to set it off);
    None where it cannot run (a frozen app has no Python to run it with)."""
    import subprocess
    if getattr(sys, "frozen", False):
        return None
    env = {k: v for k, v in os.environ.items() if k != var}
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), folder, mark, var], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env)


def main(argv: list[str]) -> int:
    folder, mark, var = (argv + [MARK])[:3]
    parent = os.getppid()   # now, while it is the qdexplorer that started this watcher
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)   # the cleanup is this process's one job
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except OSError:
        pass
    reap(folder, mark, var=var, spare=frozenset({parent}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
