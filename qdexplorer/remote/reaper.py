"""The watcher of a private local cluster (local_cluster.py): `python -m qdexplorer.remote.reaper
FOLDER MARK`, its stdin a pipe from the qdexplorer that started the cluster.

It imports nothing of Ray or qdexplorer and runs in a session of its own, so no signal to the
terminal's process group or to qdexplorer reaches it first. When the pipe closes (qdexplorer
ended, by any means), it ends every process of this user whose environment holds MARK=<mark>:
SIGTERM, then SIGKILL to those still there after GRACE_S, then deletes FOLDER (token, sockets, logs).
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import time

MARK = "QDEXPLORER_PRIVATE_CLUSTER"
GRACE_S = 2.0


def marked(mark: str, var: str = MARK) -> list[int]:
    """Processes whose environment holds `var`=`mark` (only this user's are readable; the rest are
    skipped)."""
    needle = f"{var}={mark}".encode()
    me = os.getpid()
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if needle in env.split(b"\0"):
            out.append(int(name))
    return out


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (zombies included: they still need reaping)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            out.append(int(name))
    return out


def describe(pid: int) -> str:
    """`pid 123 (sleep 600)`: its command line, short, for a message."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        cmd = "?"
    return f"pid {pid} ({cmd[:80]})"


def _signal(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def reap(folder: str, mark: str, grace_s: float = GRACE_S) -> int:
    """End the cluster's processes; returns how many had to be ended."""
    pids = marked(mark)
    _signal(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and marked(mark):
        time.sleep(0.1)
    _signal(marked(mark), signal.SIGKILL)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and marked(mark):   # zombies of a dead parent are reaped by init
        time.sleep(0.05)
    shutil.rmtree(folder, ignore_errors=True)
    return len(pids)


def main(argv: list[str]) -> int:
    folder, mark = argv
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)   # the cleanup is this process's one job
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except OSError:
        pass
    reap(folder, mark)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
