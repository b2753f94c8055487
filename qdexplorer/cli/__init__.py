"""`qdexplorer`: headless commands over the same Engine the window uses.

Exit codes: 0 success, 1 a workload failed its check or faulted, 2 bad input (missing project,
syntax error, unsupported construct, unknown workload).
"""
from __future__ import annotations

import argparse
import atexit
import errno
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable
from types import FrameType

from ..early_signals import exiting, held
from ..ir.errors import QdError
from ..project.import_guard import exit_handlers_added, threads_left_running
from .quadrants_cmds import add_parser as add_quadrants_parser
from .quadrants_cmds import cmd_quadrants
from .arg_types import at_least, seed, seconds
from . import bench_cmds, counters_cmds, desktop, project_cmds, remote_cmds, report_cmds
from .common import add_lock_clocks_arg, add_project_args, arch

class _Parser(argparse.ArgumentParser):
    """argparse with "did you mean" for a mistyped command or choice (`qdexplorer histroy`)."""

    def error(self, message: str):
        import difflib
        import re
        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2)) or [c.strip() for c in m.group(2).split(",")]
            close = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.6)
            if close:
                message += f"; did you mean '{close[0]}'?"
        # one line, not the usage block above it: what was refused and where the help is
        self.exit(2, f"{self.prog}: error: {message} (see: {self.prog} -h)\n")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="qdexplorer", description="Explore, edit and time GPU kernel tasks. "
                                 "With no command, opens the desktop app on the last project, else the bundled demo.")
    sub = ap.add_subparsers(dest="cmd", parser_class=_Parser)
    c = sub.add_parser("compile", help="compile every task to PTX and list them")
    add_project_args(c)
    c.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    c.add_argument("--target", choices=("nvptx", "host"), default="nvptx",
                   help="nvptx (PTX for the GPU, the default) or host (the CPU backend's own code)")
    c.add_argument("--dump", metavar="DIR", help="write <task>_before_ptx.ll and <task>.ptx into DIR")
    r = sub.add_parser("run", help="run workloads and check results")
    add_project_args(r)
    r.add_argument("--backend", choices=("cpu", "cuda"), help="default: project setting, else cpu")
    r.add_argument("--workload", action="append", help="only this workload (repeatable)")
    r.add_argument("--repeat", type=at_least(1), default=1, help="launch each task N times (the first run is checked)")
    r.add_argument("--seed", type=seed, default=0,
                   help="seed of the workloads' random inputs (default 0: the same inputs every run)")
    r.add_argument("--warmup", type=at_least(0), default=0, help="untimed passes before the timed ones")
    r.add_argument("--timeout", type=seconds, default=60.0,
                   help="seconds a launch may run before it counts as hung (> 0; per launch)")
    add_lock_clocks_arg(r)
    s = sub.add_parser("show", help="print one task's LLVM IR, PTX or SASS")
    add_project_args(s)
    s.add_argument("task")
    s.add_argument("--what", choices=("ll", "ptx", "sass", "source"), default="ptx",
                   help="what to print: the task's LLVM IR, its PTX (the default), its SASS (ptxas + nvdisasm on "
                        "the PTX in use, each instruction with its PTX and source line; no GPU or toolkit needed with "
                        "`pip install 'qdexplorer[sass]'`) or its kernel's source")
    s.add_argument("--sm", type=arch, metavar="sm_XX",
                   help="with --what sass: the GPU architecture to assemble for (default: the PTX's .target)")
    o = sub.add_parser("override", help="manage per-task PTX or LLVM-IR overrides of a project")
    o.add_argument("action", choices=("list", "set", "revert"))
    o.add_argument("project", nargs="?")
    o.add_argument("task", nargs="?")
    o.add_argument("file", nargs="?", help="edited PTX or LLVM IR (for set)")
    o.add_argument("--stage", choices=("ptx", "ll"), help="which stage's output the file replaces (default ptx; "
                   "revert: both)")
    o.add_argument("--target", choices=("nvptx", "host"), default="nvptx",
                   help="for --stage ll: which target's LLVM IR the file is (default nvptx; host = the CPU backend)")
    o.add_argument("--arch", type=arch, help="which compile's index to read (default: the last one)")
    o.add_argument("--cache-dir", help="cache folder holding the compile index (as for compile)")
    i = sub.add_parser("info", help="show CUDA availability, libdevice and cache folder")
    i.add_argument("--json", action="store_true", help="as JSON (for scripts)")
    add_quadrants_parser(sub)
    g = sub.add_parser("gui", help="open the desktop app")
    g.add_argument("project", nargs="?", help="folder or kernel file (default: the last one, else the demo)")
    g.add_argument("--screenshot", metavar="OUT.png", help="offscreen: compile, run, select the slowest task, "
                   "save the window to OUT.png and exit")
    g.add_argument("--workload", help="with --screenshot: the workload to run (default: the first)")
    g.add_argument("--repeat", type=at_least(1), help="with --screenshot: launches per task (default 20)")
    g.add_argument("--size", default="1400x900", help="with --screenshot: window size WxH")
    g.add_argument("--theme", choices=("light", "dark"), help="colour theme (default: the saved one)")
    bench_cmds.add_commands(sub)
    report_cmds.add_commands(sub)
    counters_cmds.add_commands(sub)
    remote_cmds.add_commands(sub)
    desktop.add_commands(sub)
    return ap



def main(argv: list[str] | None = None, gui_main: Callable[[argparse.Namespace], int] | None = None) -> int:
    """`gui_main(args)` opens the window; the launcher (the layer above the GUI) passes it in,
    so this module never imports Qt and the layers stay one-way."""
    rc = _main(argv, gui_main)
    exiting(rc)
    return _exit_past_project_threads(rc)


EXIT_HANDLER_S = 10


def _exit_past_project_threads(rc: int) -> int:
    """Python waits for every non-daemon thread and runs every exit handler at exit; a thread or
    handler a project's import added (`time.sleep(600)`) would hold the command, so the exit
    handlers get EXIT_HANDLER_S seconds and the project's threads none: then the process leaves."""
    left = threads_left_running()
    # Ray's own exit (its core worker's threads and sockets) held a finished command 2-3 s inside
    # Python's finalization, where a SIGTERM killed it (-15): a command that used Ray leaves as below
    if not left and not exit_handlers_added() and not ("ray" in sys.modules and held()):
        return rc
    if left:
        print(f"qdexplorer: the project's import started {len(left)} thread(s) still running "
              f"({', '.join(t.name for t in left[:3])}); exiting without waiting for them", file=sys.stderr)
    run = getattr(atexit, "_run_exitfuncs", None)
    if run is not None:
        t = threading.Thread(target=run, daemon=True, name="qdx-exit-handlers")
        t.start()
        t.join(EXIT_HANDLER_S)
        if t.is_alive():
            print(f"qdexplorer: an exit handler the project registered did not finish within {EXIT_HANDLER_S} s; "
                  f"exiting without it", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


def _main(argv: list[str] | None, gui_main: Callable[[argparse.Namespace], int] | None) -> int:
    def cmd_gui(a: argparse.Namespace) -> int:
        if gui_main is None:
            raise QdError("the window opens from the `qdexplorer` command (or `python -m qdexplorer gui`)")
        return gui_main(a)
    ap = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    rest = []
    if argv[:1] == ["quadrants"] and "--" in argv:  # what follows `--` goes to the Quadrants program
        argv, rest = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    a = ap.parse_args(argv)
    if a.cmd == "quadrants":
        a.script_args = rest
    if a.cmd is None:  # plain `qdexplorer` opens the app on the bundled demo
        a = ap.parse_args(["gui"])
    warnings.simplefilter("default")
    for stream in (sys.stdout, sys.stderr):  # a source or PTX the console cannot encode is escaped, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    # SIGTERM and SIGHUP (a closed terminal) clean up (helper processes, a cluster) and save like Ctrl-C
    previous = signal.signal(signal.SIGTERM, _terminate)
    hangup = signal.getsignal(signal.SIGHUP)
    if hangup is not signal.SIG_IGN:   # nohup's choice stands
        signal.signal(signal.SIGHUP, _terminate)
    try:
        commands = (project_cmds.COMMANDS | bench_cmds.COMMANDS | report_cmds.COMMANDS | counters_cmds.COMMANDS | remote_cmds.COMMANDS | desktop.COMMANDS
                    | {"gui": cmd_gui, "quadrants": cmd_quadrants})
        joined = _cluster_joined()   # a caller's own connection (in-process) is the caller's to end
        try:
            return commands[a.cmd](a)
        finally:   # while this handler is in place: a signal now is the command's (143), not the exit's
            if not joined:
                _end_cluster()
    except QdError as e:
        print(f"qdexplorer: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        private = sys.modules.get("qdexplorer.remote.local_cluster")
        if private is not None and private.lost():   # its head died: said, and not a signal from the user
            return 1
        return 128 + (e.args[0] if e.args and isinstance(e.args[0], int) else signal.SIGINT)
    except OSError as e:  # a file or folder the user named (or the project holds) cannot be used
        where = f"{e.filename}: " if getattr(e, "filename", None) else "cannot write the output: " \
            if e.errno in (errno.EFBIG, errno.ENOSPC) else ""  # no name: stdout (or a pipe) it was writing
        print(f"qdexplorer: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)
        if hangup is not signal.SIG_IGN and hangup is not None:
            signal.signal(signal.SIGHUP, hangup)


def _cluster_joined() -> bool:
    remote = sys.modules.get("qdexplorer.remote.cluster")
    return remote is not None and remote.connected()


def _end_cluster() -> None:
    """Leave the Ray cluster the command joined (a private local one stops, its processes with it).
    Left to Python's exit handlers, this ran after the command's own SIGTERM handler was gone: a
    signal during those seconds killed the process (-15) or raised inside an exit handler (issue 33)."""
    if _cluster_joined():
        sys.modules["qdexplorer.remote.cluster"].disconnect()


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(signum)

