"""A program run in a process group of its own, and never outlived by anything it started.

A process that leaves the group (a `setsid` daemon) is found as well: the program runs with a mark
in its environment (`QDEXPLORER_PROGRAM`, a fresh random value), which whatever it starts inherits,
and for the run qdexplorer is a child subreaper (Linux), so an orphan is re-parented to it rather
than to PID 1. After the program exits, each such process is named and ended (`--keep-children`:
named and left running). Should qdexplorer itself be SIGKILLed, a watcher (remote/reaper.py, in a
session of its own, holding a pipe from it) ends every marked process.

The program runs in a new session, so its process group holds it and whatever it starts. We wait
on its pid, not on its pipes: output goes to files, so a background child that inherited stdout
cannot keep a finished program "running" until the timeout. The whole group is killed on timeout,
on SIGTERM or Ctrl-C (the exception unwinds through here), and when the program exits, unless the
caller keeps its children. Output is kept in full: past `MAX_OUTPUT` the run holds the tail and the
whole stream stays in a file the note names.
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..remote import reaper
from ..remote.reaper import children_of, describe, marked

MARK = "QDEXPLORER_PROGRAM"
MAX_OUTPUT = 4 << 20  # bytes of each stream held in memory (the tail); the rest stays in a file


@dataclass
class Finished:
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool
    notes: list[str] = field(default_factory=list)  # kept output files, children ended


def run_group(cmd: list[str], env: dict, cwd=None, timeout: float = 300.0, keep_children: bool = False,
              what: str = "the program") -> Finished:
    mark = secrets.token_hex(8)
    watcher = None
    env = dict(env) | {MARK: mark}
    before = set(children_of(os.getpid()))
    streams = [tempfile.NamedTemporaryFile(prefix=f"qdx-quadrants-{n}-", suffix=".txt", delete=False)
               for n in ("stdout", "stderr")]
    try:
        watcher = reaper.start("-", mark, MARK)   # SIGKILLed, this process cannot end them: it does
        if watcher is not None:
            before.add(watcher.pid)   # our own child, not one the program left behind
        with _sigterm_unwinds(), _subreaper():
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=streams[0], stderr=streams[1], env=env,
                                    cwd=cwd, start_new_session=True)
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            except BaseException:  # Ctrl-C, or SIGTERM turned into KeyboardInterrupt: nothing outlives us
                kill_group(proc)
                proc.wait()
                _escaped(mark, before, proc.pid, keep=False)
                raise
        notes = []
        if timed_out:
            kill_group(proc)
            proc.wait()
        elif not keep_children and kill_group(proc):
            notes.append(f"{what} left background processes running when it exited; they were ended "
                         f"(--keep-children keeps them)")
        escaped = _escaped(mark, before, proc.pid, keep=keep_children)
        if escaped:
            names = ", ".join(escaped[:5]) + (" …" if len(escaped) > 5 else "")
            notes.append(f"{what} left {len(escaped)} process(es) running outside its process group (setsid): "
                         f"{names}; " + ("still running (--keep-children): `kill PID` ends each" if keep_children
                                          else "ended (--keep-children keeps them)"))
        texts = []
        for name, f in zip(("stdout", "stderr"), streams):
            text, kept = _tail(f)
            texts.append(text)
            if kept:
                notes.append(f"{what}'s {name} was {kept} bytes; only the last {MAX_OUTPUT >> 20} MiB are shown "
                             f"(truncated: the full output is in {f.name})")
        return Finished(proc.returncode, texts[0], texts[1], timed_out, notes)
    finally:
        if watcher is not None:   # everything was ended (or kept) above: the watcher finds nothing left
            if keep_children:
                watcher.kill()     # kept on purpose: not the watcher's to end
            else:
                watcher.stdin.close()
            watcher.wait()
        for f in streams:
            f.close()
            if not getattr(f, "kept", False):
                _unlink(f.name)


def _escaped(mark: str, before: set[int], pid: int, keep: bool) -> list[str]:
    """The processes the program started that are still running outside its group: those with its
    mark, and orphans re-parented to this process. Named, and ended unless `keep`."""
    if not os.path.isdir("/proc"):
        return []
    found = set(marked(mark, MARK)) | (set(children_of(os.getpid())) - before - {pid})
    found = {p for p in found if _alive(p)}
    names = [describe(p) for p in sorted(found)]
    if not keep and found:
        for p in found:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(_alive(p) for p in found):
            for p in found:   # an orphan adopted here is this process's child: reap it
                try:
                    os.waitpid(p, os.WNOHANG)
                except ChildProcessError:
                    pass
            time.sleep(0.02)
    for p in set(children_of(os.getpid())) - before - {pid}:   # group members adopted, then killed
        try:
            os.waitpid(p, os.WNOHANG)
        except ChildProcessError:
            pass
    return names


def _alive(pid: int) -> bool:
    """Running (a zombie, dead but not reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:stat.rfind(b")") + 3] not in (b"Z", b"X")


@contextmanager
def _subreaper():
    """Linux: orphans of what runs meanwhile are re-parented to this process (prctl
    PR_SET_CHILD_SUBREAPER), so a setsid daemon can be found even with its environment cleared."""
    libc = None
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(36, 1, 0, 0, 0) != 0:   # PR_SET_CHILD_SUBREAPER
            libc = None
    except (OSError, AttributeError):
        libc = None
    try:
        yield
    finally:
        if libc is not None:
            libc.prctl(36, 0, 0, 0, 0)


def kill_group(proc) -> bool:
    """SIGKILL the program's process group; whether anything was left in it."""
    if not hasattr(os, "killpg"):
        proc.kill()
        return False
    try:
        os.killpg(proc.pid, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _tail(f) -> tuple[str, int]:
    """(the stream's text, or its last MAX_OUTPUT bytes; its size when it was cut, else 0)."""
    f.flush()
    size = os.fstat(f.fileno()).st_size
    with open(f.name, "rb") as fh:
        if size > MAX_OUTPUT:
            fh.seek(size - MAX_OUTPUT)
            f.kept = True
        data = fh.read()
    return data.decode(errors="replace"), size if size > MAX_OUTPUT else 0


def _unlink(path: str):
    try:
        os.unlink(path)
    except OSError:
        pass


@contextmanager
def _sigterm_unwinds():
    """SIGTERM raises KeyboardInterrupt while the program runs (the CLI already does so), so the
    group is killed on the way out instead of the interpreter dying with it still running."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def raise_(signum, frame):
        raise KeyboardInterrupt(signum)
    previous = signal.signal(signal.SIGTERM, raise_)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
