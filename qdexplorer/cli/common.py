"""What every command shares: the project and cluster options, and opening an Engine or a history
from them. Ray is imported only when `--cluster` is given: a local command never loads it."""
from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from ..bench.clock_lock import ClockLock, ClockLockRefused
from ..bench.history import History
from ..compiler.dump import env_load_dir
from ..engine import Engine, EngineOptions
from ..events import Event, TaskLoaded
from ..ir.errors import QdError
from ..project.data_folder import history_path
from ..project.loader import bundled_demo, read_config
from ..project.trust import import_notice
from ..numbers import env_number
from ..optional_parts import ray_hint
from .arg_types import mhz_or_default


def arch(value: str) -> str:
    if not re.fullmatch(r"sm_[0-9]+[a-z]?", value):
        raise argparse.ArgumentTypeError(f"expected an SM architecture such as 'sm_90' or 'sm_90a', got {value!r}")
    return value


def add_project_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", nargs="?", help="project folder or kernel file (default: the bundled demo)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--arch", type=arch, help="PTX target such as sm_90 (default: project setting, detected GPU, else sm_90)")
    p.add_argument("--mode", choices=("per_task", "whole", "culink"), default=None,
                   help="assembly mode: one PTX module per task (per_task, the default), one per kernel (whole), "
                        "or per-task cubins from ptxas linked into one module per kernel (culink; needs ptxas) "
                        "(default: the project's mode setting, else per_task)")
    p.add_argument("--no-offline-cache", action="store_true",
                   help="memory-only cache: read and write nothing in the cache folder")
    p.add_argument("--cache-dir", help="cache folder (default: the user cache folder, or $QDEXPLORER_CACHE_DIR)")
    p.add_argument("--fast-math", choices=("on", "off"), default=None,
                   help="CUDA f32 approximate math (default: the project's fast_math setting, on)")
    p.add_argument("--load-ptx", metavar="DIR", help="load <task>.ptx from DIR in place of generated PTX")
    p.add_argument("--debug", action="store_true", default=None,
                   help="bounds-check every ndarray access (slower; reports kernel, task, file:line, index, shape)")
    p.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)


def add_cluster_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run the tasks on a Ray cluster: ray://HOST:10001, auto (RAY_ADDRESS or a local `ray start`) "
                        "or local (a private one); compilation stays here (docs/remote.md)")
    p.add_argument("--device", "--gpu", dest="device", metavar="SPEC",
                   help="with --cluster: which GPU (or node) runs the tasks: GPU, HOST, HOST:GPU, or a label from "
                        "`qdexplorer devices` such as 'H200 (node-3, GPU 1)' (default: the one Ray assigns)")


def add_lock_clocks_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lock-clocks", nargs="?", const="default", type=mhz_or_default,
                   metavar="MHZ", help="CUDA: lock the GPU's SM clock at MHZ (default: its default applications "
                                       "clock) while timing, and reset it when the command ends; needs root, and "
                                       "says so when the driver refuses (the run then goes on unlocked)")


@contextlib.contextmanager
def locked_clocks(a: argparse.Namespace, backends: set[str]) -> Iterator[None]:
    """`--lock-clocks` around a command: one line on stderr saying what was locked, or why not;
    the lock is reset when the block ends, however it ends."""
    want = vars(a).get("lock_clocks")
    if want is None:
        yield
        return
    if "cuda" not in backends:
        print("qdexplorer: --lock-clocks: the CPU backend has no GPU clock to lock; ignored", file=sys.stderr)
        yield
        return
    if vars(a).get("cluster"):
        print("qdexplorer: --lock-clocks: a cluster's GPU is not locked from here (lock it on its machine with "
              "`sudo nvidia-smi -lgc`); timing with its clocks as they are", file=sys.stderr)
        yield
        return
    lock = ClockLock(0, None if want == "default" else want)
    try:
        lock.__enter__()
    except ClockLockRefused as e:
        print(f"qdexplorer: --lock-clocks: {e}; timing with the clocks unlocked", file=sys.stderr)
        yield
        return
    print(f"qdexplorer: locked GPU 0's SM clock at {lock.locked} MHz until this command ends", file=sys.stderr)
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


def backend_of(a: argparse.Namespace, backend: str | None) -> str:
    """The backend the Engine will pick (its rule: given, else the project's, else cpu), read from
    the project's qdexplorer.toml without importing the project."""
    if backend:
        return backend
    path = Path(a.project).resolve() if a.project else bundled_demo()
    return (read_config(path).backend if path.is_dir() else None) or "cpu"


def connected_cluster(address: str) -> ModuleType:
    """`qdexplorer.remote.cluster`, connected to `address`: every command's one way to Ray, which is an
    optional dependency (pip install 'qdexplorer[ray]'), so its absence is one message, not a traceback."""
    try:
        from ..remote import cluster as ray_cluster  # deliberate lazy load: Ray only when --cluster is given
    except ImportError as e:
        raise QdError(f"--cluster needs Ray: {ray_hint()} ({e})") from None
    ray_cluster.connect(address)
    return ray_cluster


def make_engine(a: argparse.Namespace, backend: str | None = None, dump_dir: str | None = None,
                device: str | None = None) -> Engine:
    """An Engine from the command's options; `device` (a --device SPEC, or 'local' for this
    machine) overrides --device, for commands with one device per side."""
    notice = import_notice(a.project)
    if notice:  # naming a project on the command line trusts it, as running a script does: say so once
        print(notice, file=sys.stderr)
    opt = vars(a).get  # `override set` has fewer options than compile/run
    if opt("load_ptx") and "backend" in vars(a) and backend_of(a, backend) == "cpu":   # a command that runs tasks
        raise QdError(f"--load-ptx {opt('load_ptx')}: the CPU backend runs no PTX (it runs the LLVM IR), so the "
                      f"folder would be ignored; run with --backend cuda, or edit the host LLVM IR instead "
                      f"(qdexplorer override set --stage ll --target host)")
    cluster, spec = opt("cluster"), device if device is not None else opt("device")
    where: dict[str, Any] = {}
    arch = opt("arch")
    if spec == "local":
        cluster = None
    elif spec and not cluster:
        raise QdError(f"--device {spec}: a device of a cluster needs --cluster (ray://HOST:10001, auto or local)")
    elif cluster:
        env_number("QDEXPLORER_CONNECT_TIMEOUT")    # the environment's numbers: refused before Ray loads
        env_number("QDEXPLORER_OBJECT_STORE_MB")
        ray_cluster = connected_cluster(cluster)
        place = ray_cluster.place(spec, backend_of(a, backend))
        where = {"node": place.node_id, "gpu": place.gpu}
        arch = arch or place.sm   # compile for the GPU that runs it (PTX is portable; the SM picks the arch)
    options = EngineOptions(backend=backend, arch=arch, in_process=opt("in_process", False),
                            offline_cache=False if opt("no_offline_cache") else None, cache_dir=opt("cache_dir"),
                            mode=opt("mode"), load_ptx=opt("load_ptx") or env_load_dir(),
                            launch_timeout=opt("timeout", 60.0), dump_dir=dump_dir,
                            fast_math=None if opt("fast_math") is None else opt("fast_math") == "on",
                            debug=opt("debug"), cluster=cluster, ncu=opt("ncu"), **where)
    eng = Engine(a.project, options)
    if cluster:
        _say_where_it_runs(eng)
    return eng


def _say_where_it_runs(eng: Engine) -> None:
    """On stderr, once the device is up: which machine and GPU ran the tasks (the status bar's line)."""
    said: list[bool] = []

    def on(ev: Event) -> None:
        if isinstance(ev, TaskLoaded) and not said:
            said.append(True)
            info = eng.device_info()
            print(f"qdexplorer: runs on {info.get('label', '?')} via {eng.cluster}", file=sys.stderr)
    eng.subscribe(on)


def report_load_dir(eng: Engine, tasks: list[str]) -> None:
    """Say so when a --load-ptx folder matches no task, or holds files that match none."""
    folder, unmatched, matched = eng.load_folder_report(tasks)
    if folder is not None and not matched:
        print(f"qdexplorer: --load-ptx {folder}: no <task>.ptx file there matches a task of this project; "
              f"nothing was loaded from it", file=sys.stderr)
    elif unmatched:
        print(f"qdexplorer: --load-ptx {folder}: {len(unmatched)} file(s) match no task and were ignored: "
              f"{', '.join(unmatched[:5])}{' …' if len(unmatched) > 5 else ''}", file=sys.stderr)


def open_history(project: str | Path | None, create: bool = True, write: bool | None = None) -> History:
    """The project's run history; reading commands (create=False) never create one, and open it
    read-only (never migrated, never written) unless `write`."""
    path = history_path(project)
    if not create and not path.exists():
        raise QdError(f"no saved runs yet for this project ({path} does not exist); "
                      f"save one with: qdexplorer bench --save NAME")
    return History(path, read_only=not (create if write is None else write))


def said_once(error: str) -> str:
    """A compile error as the CLI prints it: its `file:line:col: error: MESSAGE` line and where it happened,
    without the message repeated at the end (Quadrants' form, kept in the exception for code that matches
    on it, printed the message twice)."""
    lines = error.rstrip("\n").splitlines()
    m = re.match(r".*?:\d+:\d+: error: (.*)$", lines[0]) if lines else None
    if m and len(lines) > 2 and lines[-1] == m.group(1):
        lines = lines[:-1]
    return "\n".join(lines)
