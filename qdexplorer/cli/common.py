"""What every command shares: the project options, and opening an Engine or a history from them."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..bench.history import History
from ..compiler.dump import env_load_dir
from ..engine import Engine
from ..lang.errors import QdError
from ..project.data_folder import history_path
from ..project.trust import import_notice


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


def make_engine(a: argparse.Namespace, backend: str | None = None, dump_dir: str | None = None) -> Engine:
    notice = import_notice(a.project)
    if notice:  # naming a project on the command line trusts it, as running a script does: say so once
        print(notice, file=sys.stderr)
    opt = vars(a).get  # `override set` has fewer options than compile/run
    return Engine(a.project, backend=backend, arch=opt("arch"), in_process=opt("in_process", False),
                  offline_cache=False if opt("no_offline_cache") else None, cache_dir=opt("cache_dir"),
                  mode=opt("mode"), load_ptx=opt("load_ptx") or env_load_dir(),
                  launch_timeout=opt("timeout", 60.0), dump_dir=dump_dir,
                  fast_math=None if opt("fast_math") is None else opt("fast_math") == "on",
                  debug=opt("debug"))


def report_load_dir(eng: Engine, tasks: list[str]) -> None:
    """Say so when a --load-ptx folder matches no task, or holds files that match none."""
    folder, unmatched, matched = eng.load_folder_report(tasks)
    if folder is not None and not matched:
        print(f"qdexplorer: --load-ptx {folder}: no <task>.ptx file there matches a task of this project; "
              f"nothing was loaded from it", file=sys.stderr)
    elif unmatched:
        print(f"qdexplorer: --load-ptx {folder}: {len(unmatched)} file(s) match no task and were ignored: "
              f"{', '.join(unmatched[:5])}{' …' if len(unmatched) > 5 else ''}", file=sys.stderr)


def open_history(project: str | Path | None, create: bool = True) -> History:
    """The project's run history; reading commands never create one."""
    path = history_path(project)
    if not create and not path.exists():
        raise QdError(f"no saved runs yet for this project ({path} does not exist); "
                      f"save one with: qdexplorer bench --save NAME")
    return History(path)
