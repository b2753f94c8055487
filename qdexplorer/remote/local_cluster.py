"""`--cluster local`: a Ray cluster of this machine that only this user, and only this process's
life, can reach.

Ray's own `ray.init()` writes its token to `~/.ray/auth_token` with the umask's mode (0644 in a
0755 home: readable by every local user), announces it on the terminal, binds its GCS to the
machine's network address, and leaves its agents (`ray::DashboardAgent`, `ray::RuntimeEnvAgent`)
running under PID 1 for minutes when the driver is killed. Here instead:

- the token (fresh, 256 bits) and Ray's session folder (sockets, logs, spilled objects) live in a
  folder of `tempfile.mkdtemp` (mode 0700) that is deleted with the cluster;
- every Ray process binds to 127.0.0.1 (Ray's single-machine setting, which it otherwise keeps for
  macOS and Windows);
- the token mode is set explicitly, so Ray prints no notice, and nothing of Ray's reaches the
  terminal or a saved run;
- a watcher process (`reaper`, started first, in a session of its own) waits on a pipe from this
  process: when this process ends, however (SIGKILL included), the pipe closes and the watcher ends
  every process that carries this cluster's mark in its environment (Ray's children inherit it),
  SIGTERM then SIGKILL after `reaper.GRACE_S`, and deletes the folder.
"""
from __future__ import annotations

import atexit
import importlib
import logging
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..compiler.safe_files import output_folder, write_file
from ..ir.errors import QdError
from ..numbers import env_number
from . import reaper as reaper_process

MARK = "QDEXPLORER_PRIVATE_CLUSTER"   # environment variable every process of the cluster inherits


@dataclass
class LocalCluster:
    folder: Path
    token_path: Path
    mark: str
    reaper: subprocess.Popen[bytes]
    lost: str | None = None   # why the cluster ended under us (its head died), once it has
    closing: bool = False     # being shut down on purpose: its head ending is no news
    started: bool = False     # ray.init returned: this process's Ray connection is this cluster's
    env_before: dict = field(default_factory=dict)   # what prepare() overwrote in os.environ, put back by stop()

    def describe(self, cpus: int, gpus: int) -> str:
        return (f"qdexplorer: started a private Ray cluster on this machine (127.0.0.1 only, {cpus} CPU(s), "
                f"{gpus} GPU(s); token and files in {self.folder}, mode 0700); it stops when this command ends "
                f"(Ctrl-C, or any signal)")

    def stop(self, wait_s: float = 8.0) -> None:
        """Close the pipe: the reaper ends whatever `ray.shutdown` left and deletes the folder;
        waits up to `wait_s` for it, so that the command ends with its cluster."""
        if self.reaper.stdin is not None and not self.reaper.stdin.closed:
            self.reaper.stdin.close()
        try:
            self.reaper.wait(wait_s)
        except subprocess.TimeoutExpired:
            self.reaper.returncode = 0   # still cleaning: it goes on alone (no ResourceWarning for it)


_current: list[LocalCluster] = []


def prepare() -> LocalCluster:
    """The private folder, its token, the mark and the reaper: everything before `ray.init`."""
    folder = Path(tempfile.mkdtemp(prefix="qdxray-"))   # 0700; short: Ray's socket paths stay < 108 bytes
    token = folder / "token"
    write_file(token, secrets.token_hex(32))   # 0600, in a 0700 folder
    mark = secrets.token_hex(8)
    reaper = reaper_process.start(str(folder), mark)
    if reaper is None:
        raise QdError("--cluster local needs a Python to run its watcher; this app has none (use `pip install "
                      "'qdexplorer[cluster]'`)")
    env_before = {k: os.environ.get(k) for k in (MARK, "RAY_AUTH_MODE", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_TOKEN")}
    os.environ[MARK] = mark
    os.environ["RAY_AUTH_MODE"] = "token"           # explicit: Ray then prints no notice about it
    os.environ["RAY_AUTH_TOKEN_PATH"] = str(token)
    os.environ.pop("RAY_AUTH_TOKEN", None)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    cluster = LocalCluster(folder, token, mark, reaper, env_before=env_before)
    _current[:] = [cluster]
    atexit.register(stop)   # after Ray's own atexit shutdown has been registered at its import: runs first
    return cluster


def init_kwargs(cluster: LocalCluster) -> dict[str, Any]:
    """Ray's files in the private folder; `QDEXPLORER_OBJECT_STORE_MB` caps the object store (Ray
    takes 30% of the memory by default; 75 MB is its least)."""
    kw: dict[str, Any] = {"_temp_dir": str(output_folder(cluster.folder, "the private cluster's folder") / "r")}
    store = env_number("QDEXPLORER_OBJECT_STORE_MB")    # 0: unset (Ray's own size)
    if store:
        kw["object_store_memory"] = int(store) << 20
    return kw


class _NoSigtermNote(logging.Filter):
    """Ray's "SIGTERM handler is not set because current thread is not the main thread": ray.init from the
    window's engine thread. Nothing is missing (the app has its own handler, gui/exit_signals.py), so the
    line on the user's terminal only alarmed."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "SIGTERM handler is not set" not in record.getMessage()


_QUIET = _NoSigtermNote()


def quiet_sigterm_note() -> None:
    """Drop that one line of Ray's (idempotent: the filter is added once)."""
    log = logging.getLogger("ray._private.worker")
    if _QUIET not in log.filters:
        log.addFilter(_QUIET)


def start(num_cpus: int, **kw: Any) -> LocalCluster:
    """`ray.init` of a private cluster (see the module's docstring); the caller's SIGTERM handler is
    put back afterwards (Ray's own turns SIGTERM into `sys.exit(15)`, which saves nothing)."""
    import ray
    import ray._private.ray_constants as ray_constants
    cluster = prepare()
    quiet_sigterm_note()
    forget_token()                                    # Ray read RAY_AUTH_MODE when it was imported
    previous = signal.getsignal(signal.SIGTERM)
    single = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False          # every address Ray picks is then 127.0.0.1
    try:
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, **init_kwargs(cluster), **kw)
    except SystemExit as e:   # SIGTERM while Ray starts: its own handler exits 15, saving nothing
        # Ray's half-started processes are the reaper's to end (checked: none is left); their Popen
        # objects, dropped with ray.init's frames, would each print a ResourceWarning on the way out
        warnings.filterwarnings("ignore", r"subprocess \d+ is still running", ResourceWarning)
        cluster.stop()
        if e.code == signal.SIGTERM:
            raise KeyboardInterrupt(signal.SIGTERM) from None   # the CLI's way: exit 143
        raise
    except BaseException:
        cluster.stop()
        raise
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = single
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
    cluster.started = True
    _watch_head(cluster, interrupt=threading.current_thread() is threading.main_thread())
    return cluster


WATCH_S = 0.5


def _watch_head(cluster: LocalCluster, interrupt: bool) -> None:
    """If the cluster's head (gcs_server, or the raylet) dies, Ray keeps the driver waiting 60 s and
    then aborts it with a C++ log line. Instead: say which process ended, and (`interrupt`: a
    command, started on the main thread) interrupt the main thread as SIGTERM would, so the command
    saves what it finished and ends (the CLI exits 1). The window only records it: its next device
    call fails with Ray's own error."""
    import _thread

    import ray
    node = getattr(ray._private.worker, "_global_node", None)
    procs = getattr(node, "all_processes", {}) if node is not None else {}
    watched = [(kind, info.process) for kind in ("gcs_server", "raylet") for info in procs.get(kind, [])
               if getattr(info, "process", None) is not None]
    if not watched:
        return

    def watch() -> None:
        while _current and _current[0] is cluster and not cluster.closing:
            for kind, proc in watched:
                code = proc.poll()
                if code is not None and cluster.lost is None and not cluster.closing:
                    cluster.lost = (f"the private Ray cluster's head process {kind} (pid {proc.pid}) ended "
                                    f"unexpectedly (exit status {code}); what was finished is saved")
                    print(f"\nqdexplorer: {cluster.lost}", file=sys.stderr, flush=True)
                    if interrupt:
                        _thread.interrupt_main(signal.SIGTERM)
                    return
            time.sleep(WATCH_S)
    threading.Thread(target=watch, name="qdexplorer-cluster-head", daemon=True).start()


_lost: list[str] = []   # why a cluster since stopped had ended under us (the CLI asks after stopping it)


def lost() -> str | None:
    """Why the private cluster ended under this process, if it did (the CLI's exit status is then 1),
    also once it has been stopped."""
    return next((c.lost for c in _current if c.lost), None) or next(iter(_lost), None)


def stop() -> None:
    """`ray.shutdown`, then the reaper finishes: no process of the cluster stays."""
    if not _current:
        return
    for c in _current:
        c.closing = True
    if any(c.started for c in _current):   # one only prepared never joined: Ray's connection is not its
        try:
            import ray
            ray.shutdown()
        except Exception:  # noqa: BLE001 - a cluster already gone (its head killed)
            pass
    for c in _current:
        c.stop()
        for k, v in c.env_before.items():   # the token path names a folder the reaper has deleted: a later
            if v is None:                     # `ray start` in this process's children would fail on it
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    forget_token()   # Ray caches the token it read: the next cluster this process joins must get its own
    _lost[:] = [c.lost for c in _current if c.lost]
    _current.clear()


def forget_token() -> None:
    """Re-read RAY_AUTH_MODE and drop the cached token: a cached one, sent to another cluster, is
    refused there and Ray Client reports only "connection timeout"."""
    try:
        raylet: Any = importlib.import_module("ray._raylet")
    except ImportError:
        return
    raylet.Config.initialize("")
    raylet.AuthenticationTokenLoader.instance().reset_cache()

