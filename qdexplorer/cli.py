"""`qdexplorer`: headless commands over the same Engine the GUI uses.

Exit codes: 0 success, 1 a workload failed its check or faulted, 2 bad input (missing project,
syntax error, unsupported construct, unknown workload).
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import re
import signal
import statistics
import sys
import warnings

from .cli_args import at_least
from .lang.errors import QdError


def _arch(value: str) -> str:
    if not re.fullmatch(r"sm_[0-9]+[a-z]?", value):
        raise argparse.ArgumentTypeError(f"expected an SM architecture such as 'sm_90' or 'sm_90a', got {value!r}")
    return value


def _seconds(value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        v = float("nan")
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"--timeout must be a number of seconds greater than 0, got {value!r}")
    return v


def _add_project_args(p):
    p.add_argument("project", nargs="?", help="project folder or kernel file (default: the bundled demo)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--arch", type=_arch, help="PTX target such as sm_90 (default: project setting, detected GPU, else sm_90)")
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


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="qdexplorer", description="Explore, edit and time GPU kernel tasks. "
                                 "With no command, opens the desktop app on the last project, else the bundled demo.")
    sub = ap.add_subparsers(dest="cmd")
    c = sub.add_parser("compile", help="compile every task to PTX and list them")
    _add_project_args(c)
    c.add_argument("--kernel", action="append", help="only this kernel (repeatable)")
    c.add_argument("--target", choices=("nvptx", "host"), default="nvptx")
    c.add_argument("--dump", metavar="DIR", help="write <task>_before_ptx.ll and <task>.ptx into DIR")
    r = sub.add_parser("run", help="run workloads and check results")
    _add_project_args(r)
    r.add_argument("--backend", choices=("cpu", "cuda"), help="default: project setting, else cpu")
    r.add_argument("--workload", action="append", help="only this workload (repeatable)")
    r.add_argument("--repeat", type=int, default=1, help="launch each task N times (the first run is checked)")
    r.add_argument("--seed", type=at_least(0), default=0)
    r.add_argument("--warmup", type=at_least(0), default=0, help="untimed passes before the timed ones")
    r.add_argument("--timeout", type=_seconds, default=60.0,
                   help="seconds a launch may run before it counts as hung (> 0; per launch)")
    s = sub.add_parser("show", help="print one task's LLVM IR or PTX")
    _add_project_args(s)
    s.add_argument("task")
    s.add_argument("--what", choices=("ll", "ptx", "source"), default="ptx")
    o = sub.add_parser("override", help="manage per-task PTX or LLVM-IR overrides of a project")
    o.add_argument("action", choices=("list", "set", "revert"))
    o.add_argument("project", nargs="?")
    o.add_argument("task", nargs="?")
    o.add_argument("file", nargs="?", help="edited PTX or LLVM IR (for set)")
    o.add_argument("--stage", choices=("ptx", "ll"), help="which stage's output the file replaces (default ptx; "
                   "revert: both)")
    o.add_argument("--target", choices=("nvptx", "host"), default="nvptx",
                   help="for --stage ll: which target's LLVM IR the file is (default nvptx; host = the CPU backend)")
    o.add_argument("--arch", type=_arch, help="which compile's index to read (default: the last one)")
    o.add_argument("--cache-dir", help="cache folder holding the compile index (as for compile)")
    sub.add_parser("info", help="show CUDA availability, libdevice and cache folder")
    from .quadrants.command import add_parser as add_quadrants_parser
    add_quadrants_parser(sub)
    g = sub.add_parser("gui", help="open the desktop app")
    g.add_argument("project", nargs="?", help="folder or kernel file (default: the last one, else the demo)")
    g.add_argument("--screenshot", metavar="OUT.png", help="offscreen: compile, run, select the slowest task, "
                   "save the window to OUT.png and exit")
    g.add_argument("--workload", help="with --screenshot: the workload to run (default: the first)")
    g.add_argument("--repeat", type=int, help="with --screenshot: launches per task (default 20)")
    g.add_argument("--size", default="1400x900", help="with --screenshot: window size WxH")
    g.add_argument("--theme", choices=("light", "dark"), help="colour theme (default: the saved one)")
    from .cli_bench import add_commands
    add_commands(sub, _add_project_args)
    return ap


def _engine(a, backend=None, dump_dir=None):
    from .compiler.dump import env_load_dir
    from .engine import Engine
    from .project.trust import import_notice
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


def cmd_compile(a) -> int:
    from .compiler.dump import env_dump_dir
    from .events import TaskCompiled
    events = []
    dump_dir = a.dump or env_dump_dir()
    with _engine(a, dump_dir=dump_dir) as eng:
        eng.on(lambda ev: events.append(ev.to_dict()) if isinstance(ev, TaskCompiled) else None)
        kts, compiled = eng.compile(a.kernel, target=a.target)
        _report_load_dir(eng, [ct.task for ct in compiled])
        tasks = {t.name: t for kt in kts for t in kt.tasks}
        rows = []
        for ct in compiled:
            t = tasks[ct.task]
            rows.append({"task": ct.task, "kernel": ct.kernel, "type": t.type, "file": t.file,
                         "lines": list(t.lines), "block_dim": t.block_dim, "params": [p.name for p in t.params],
                         "target": ct.target, "arch": ct.arch, "bytes": len(ct.output), "tier": ct.tier,
                         "seconds": {k: round(v, 6) for k, v in ct.seconds.items()},
                         "override": ct.override, "error": ct.error, "log": ct.log, "unit": ct.unit,
                         "kind": ct.final_kind, "fast_math": getattr(ct.module, "fast_math", None),
                         "vector": getattr(ct.module, "vector", None)})
        errors = [kt for kt in kts if kt.error]
        if a.json:
            print(json.dumps({"project": str(eng.project.path), "arch": eng.arch, "target": a.target,
                              "mode": eng.mode, "tasks": rows, "kernel_errors": {k.kernel: k.error for k in errors},
                              "cache": vars(eng.cache.stats) | {"folder": str(eng.cache.folder),
                                                                "offline": eng.cache.offline},
                              "events": events, "dump": dump_dir}, indent=2))
        else:
            print(f"{eng.project.path}  ({a.target} {eng.arch}, {eng.mode})")
            for r in rows:
                total = sum(r["seconds"].values())
                flag = f"  override:{r['override']}" if r["override"] else ""
                status = f"ERROR {r['error']}" if r["error"] else f"{r['bytes']:>7} B  {total * 1e3:8.1f} ms  {r['tier']}"
                print(f"  {r['task']:<48} {r['type']:<10} {status}{flag}")
            for k in errors:
                print(k.error, file=sys.stderr)
            if dump_dir:
                print(f"dumped to {dump_dir}")
        if errors:
            return 2
        return 1 if any(r["error"] for r in rows) else 0


def _report_load_dir(eng, tasks):
    """Say so when a --load-ptx folder matches no task, or holds files that match none."""
    unmatched, matched = eng.overrides.unmatched_load_files(tasks)
    folder = eng.overrides.load_dir
    if folder is not None and not matched:
        print(f"qdexplorer: --load-ptx {folder}: no <task>.ptx file there matches a task of this project; "
              f"nothing was loaded from it", file=sys.stderr)
    elif unmatched:
        print(f"qdexplorer: --load-ptx {folder}: {len(unmatched)} file(s) match no task and were ignored: "
              f"{', '.join(unmatched[:5])}{' …' if len(unmatched) > 5 else ''}", file=sys.stderr)


def cmd_run(a) -> int:
    from .session import Session
    if a.repeat < 1:
        raise QdError("--repeat must be at least 1")
    with _engine(a, backend=a.backend) as eng:
        session = Session()
        eng.on(session.apply)
        resources = session.resources
        results = eng.run(a.workload, repeat=a.repeat, seed=a.seed, warmup=a.warmup)
        _report_load_dir(eng, [name.split(":", 1)[1] for name in eng.compiled])
        out = []
        for r in results:
            per = {}
            for tm in r.timings:
                per.setdefault(tm.task, []).append(tm.ms)
            out.append({"workload": r.workload, "kernel": r.kernel, "backend": r.backend, "status": r.status,
                        "check_error": r.check_error, "error": r.error, "skipped": r.skipped,
                        "fault_task": r.fault_task,
                        "tasks": [{"task": t, "launches": len(v), "mean_ms": statistics.fmean(v),
                                   "min_ms": min(v), "median_ms": statistics.median(v),
                                   "resources": {k: r for k, r in resources.get(t, {}).items() if k != "jit_log"}}
                                  for t, v in per.items()],
                        "timings": [tm.to_dict() for tm in r.timings]})
        if a.json:
            print(json.dumps({"project": str(eng.project.path), "backend": eng.backend, "arch": eng.arch,
                              "repeat": a.repeat, "workloads": out}, indent=2))
        else:
            for w in out:
                print(f"{w['status'].upper():<8} {w['workload']:<24} ({w['kernel']}, {w['backend']})")
                for t in w["tasks"]:
                    r = t["resources"]
                    res = (f"  {r['registers']:>3} regs  {r['static_shared_bytes']:>5} B shared  "
                           f"occupancy {r['occupancy']:.0%}") if r else ""
                    print(f"         {t['task']:<48} {t['launches']:>4}x  median {t['median_ms']:9.4f} ms  "
                          f"min {t['min_ms']:9.4f} ms{res}")
                for key in ("check_error", "error", "skipped"):
                    if w[key]:
                        print(f"         {key.replace('_', ' ')}: {w[key]}")
            counts = {}
            for w in out:
                counts[w["status"]] = counts.get(w["status"], 0) + 1
            print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + f"  ({eng.backend}, {eng.arch})")
        return 0 if all(w["status"] in ("passed", "skipped") for w in out) else 1


def _artifacts(a):
    """The project's compile index, opened without importing the project (toml only)."""
    from pathlib import Path

    from .compiler.compile_index import CompileIndex
    from .compiler.cache import PtxCache
    from .project.loader import ProjectError, bundled_demo, read_config
    path = Path(a.project).resolve() if a.project else bundled_demo()
    if not path.exists():
        raise ProjectError(f"project folder not found: {path}")
    cfg = read_config(path) if path.is_dir() else None
    offline = False if getattr(a, "no_offline_cache", False) else (cfg.offline_cache if cfg else None)
    cache = PtxCache(getattr(a, "cache_dir", None) or (cfg.cache_dir if cfg else None), offline=offline)
    return path, CompileIndex(cache, path)


def _tasks_without_import(a, index, path):
    """Tasks of the last compile; only the bundled demo (our own code) is compiled on demand."""
    from .project.loader import bundled_demo
    try:
        return index.tasks("nvptx", a.arch)
    except QdError:
        if path != bundled_demo():
            raise
        with _engine(a) as eng:
            eng.compile(target="nvptx")
        return index.tasks("nvptx", a.arch or None)


def cmd_show(a) -> int:
    """From compiled artifacts (the cache and its index): `show` never runs the project's code."""
    from .compiler.overrides import OverrideStore
    path, index = _artifacts(a)
    arts = _tasks_without_import(a, index, path)
    art = arts.get(a.task)
    if art is None:
        raise QdError(f"no task named {a.task} in the last compile of {path} "
                      f"(known: {', '.join(sorted(arts)) or 'none'})")
    if a.what == "source":
        print(f"# {art.file}:{art.lines[0]}-{art.lines[1]}\n{art.source}")
        return 0
    ov = OverrideStore(path if path.is_dir() else None).get(a.task, a.what)
    if ov is not None and ov.problem:
        raise QdError(f"the {a.what.upper()} override {ov.path} is refused: {ov.problem}")
    print(ov.data.decode() if ov is not None else index.text(art, a.what))
    return 0


def cmd_override(a) -> int:
    """`list` and `revert` never import the project; `set` reads the generated text's hash from
    the compile index when there is one (else it compiles, which imports the project)."""
    from .compiler.overrides import OverrideStore, sha256
    path, index = _artifacts(a)
    if not path.is_dir():
        raise QdError(f"overrides need a project folder; {path} is a single file")
    store = OverrideStore(path)
    stage = a.stage or "ptx"
    target = a.target if stage == "ll" else "nvptx"  # LLVM IR is per target; PTX is nvptx's
    try:
        arts = index.tasks(target, a.arch)
    except QdError:
        arts = None  # never compiled here
    if a.action == "list":
        if arts is None:
            rows = [(t, "-", "unknown", "not compiled yet: run `qdexplorer compile` to check it") for t in store.tasks()]
        else:
            rows = store.states({t: {"ptx": x.generated_sha256, "ll": x.ll_sha256 or None} for t, x in arts.items()})
        for t, kind, state, note in rows:
            print(f"{t}  {state}" + (f"  [{kind}]" if kind != "ptx" else "") + (f"  ({note})" if note else ""))
        return 0
    if not a.task:
        raise QdError("override set/revert need a TASK name")
    if a.action == "revert":
        done = store.revert(a.task, (a.stage,) if a.stage else ("ptx", "ll"))
        print("reverted" if done else f"no override for {a.task} in {store.folder}")
        return 0
    if not a.file or not os.path.isfile(a.file):
        raise QdError(f"override set needs an existing {'PTX' if stage != 'll' else 'LLVM IR'} file, got {a.file!r}")
    with open(a.file, "rb") as fh:
        edited = fh.read()
    art = arts.get(a.task) if arts else None
    generated = (art.generated_sha256 if stage == "ptx" else art.ll_sha256) if art else None
    if generated and stage == "ll":  # the text itself, so the edit's signature is checked now
        try:
            generated = index.text(art, "ll").encode()
        except QdError:
            pass  # only its hash: the signature is checked at the next compile
    if not generated:
        with _engine(a) as eng:  # compiles in the pool: LLVM never runs in this process
            _, compiled = eng.compile(target=target)
        ct = next((c for c in compiled if c.task == a.task), None)
        if ct is None:
            raise QdError(f"no task named {a.task} (known: {', '.join(c.task for c in compiled)})")
        produced = ct.produced.get(stage)
        if produced is None:
            raise QdError(f"{a.task} has no generated {stage} to derive an override from: {ct.error}")
        generated = sha256(produced.data)
    print(store.write(a.task, edited, generated, kind=stage, target=target if stage == "ll" else None))
    return 0


def cmd_info(a) -> int:
    from .codegen.math_lib import libdevice_path
    from .compiler.cache import default_cache_dir, offline_cache_default
    from .runtime.cuda.detect import cuda_status
    st = cuda_status()
    print(json.dumps({"cuda": vars(st), "libdevice": libdevice_path(), "cache_dir": str(default_cache_dir()),
                      "offline_cache": offline_cache_default()}, indent=2))
    return 0


def _cmd_quadrants(a) -> int:
    from .quadrants.command import cmd_quadrants
    return cmd_quadrants(a)


def main(argv=None, gui_main=None) -> int:
    """`gui_main(args)` opens the window; the launcher (the layer above the GUI) passes it in,
    so this module never imports Qt and the layers stay one-way."""
    return _exit_past_project_threads(_main(argv, gui_main))


def _exit_past_project_threads(rc: int) -> int:
    """Python waits for every non-daemon thread and runs every exit handler at exit; a thread or
    handler a project's import added (`time.sleep(600)`) would hold the command, so the exit
    handlers get EXIT_HANDLER_S seconds and the project's threads none: then the process leaves."""
    import atexit
    import threading

    from .project.import_guard import exit_handlers_added, threads_left_running
    left = threads_left_running()
    if not left and not exit_handlers_added():
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


EXIT_HANDLER_S = 10


def _main(argv=None, gui_main=None) -> int:
    def cmd_gui(a) -> int:
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
    from .cli_bench import COMMANDS as BENCH
    for stream in (sys.stdout, sys.stderr):  # a source or PTX the console cannot encode is escaped, not a crash
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    previous = signal.signal(signal.SIGTERM, _terminate)  # SIGTERM cleans up (helper processes) like Ctrl-C
    try:
        return ({"compile": cmd_compile, "run": cmd_run, "show": cmd_show, "override": cmd_override,
                 "info": cmd_info, "gui": cmd_gui, "quadrants": _cmd_quadrants} | BENCH)[a.cmd](a)
    except QdError as e:
        print(f"qdexplorer: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        return 128 + (e.args[0] if e.args and isinstance(e.args[0], int) else signal.SIGINT)
    except OSError as e:  # a file or folder the user named (or the project holds) cannot be used
        where = f"{e.filename}: " if getattr(e, "filename", None) else "cannot write the output: " \
            if e.errno in (errno.EFBIG, errno.ENOSPC) else ""  # no name: stdout (or a pipe) it was writing
        print(f"qdexplorer: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate(signum, frame):
    raise KeyboardInterrupt(signum)


if __name__ == "__main__":
    sys.exit(main())
