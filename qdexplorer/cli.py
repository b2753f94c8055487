"""`qdexplorer`: headless commands over the same Engine the GUI uses.

Exit codes: 0 success, 1 a workload failed its check or faulted, 2 bad input (missing project,
syntax error, unsupported construct, unknown workload).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import warnings

from .lang.errors import QdError


def _add_project_args(p):
    p.add_argument("project", nargs="?", help="project folder or kernel file (default: the bundled demo)")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    p.add_argument("--arch", help="PTX target such as sm_90 (default: project setting, detected GPU, else sm_90)")
    p.add_argument("--mode", choices=("per_task", "whole"), default="per_task",
                   help="one module per task (default) or one module per kernel")
    p.add_argument("--no-offline-cache", action="store_true",
                   help="memory-only cache: read and write nothing in the cache folder")
    p.add_argument("--cache-dir", help="cache folder (default: the user cache folder, or $QDEXPLORER_CACHE_DIR)")
    p.add_argument("--load-ptx", metavar="DIR", help="load <task>.ptx from DIR in place of generated PTX")
    p.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="qdexplorer", description="Explore, edit and time GPU kernel tasks. "
                                 "With no command, opens the desktop app on the bundled demo.")
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
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--warmup", type=int, default=0, help="untimed passes before the timed ones")
    r.add_argument("--timeout", type=float, default=60.0, help="seconds before a launch counts as hung")
    s = sub.add_parser("show", help="print one task's LLVM IR or PTX")
    _add_project_args(s)
    s.add_argument("task")
    s.add_argument("--what", choices=("ll", "ptx", "source"), default="ptx")
    o = sub.add_parser("override", help="manage per-task PTX overrides of a project")
    o.add_argument("action", choices=("list", "set", "revert"))
    o.add_argument("project", nargs="?")
    o.add_argument("task", nargs="?")
    o.add_argument("file", nargs="?", help="edited PTX or LLVM IR (for set)")
    o.add_argument("--stage", choices=("ptx", "ll"), help="which stage's output the file replaces (default ptx; "
                   "revert: both)")
    sub.add_parser("info", help="show CUDA availability, libdevice and cache folder")
    g = sub.add_parser("gui", help="open the desktop app")
    g.add_argument("project", nargs="?", help="folder or kernel file (default: the last one, else the demo)")
    g.add_argument("--screenshot", metavar="OUT.png", help="offscreen: compile, run, select the slowest task, "
                   "save the window to OUT.png and exit")
    g.add_argument("--workload", help="with --screenshot: the workload to run (default: the first)")
    g.add_argument("--repeat", type=int, help="with --screenshot: launches per task (default 20)")
    g.add_argument("--size", default="1400x900", help="with --screenshot: window size WxH")
    g.add_argument("--theme", choices=("light", "dark"), help="colour theme (default: the saved one)")
    return ap


def _engine(a, backend=None, dump_dir=None):
    from .compiler.dump import env_load_dir
    from .engine import Engine
    return Engine(a.project, backend=backend, arch=a.arch, in_process=a.in_process,
                  offline_cache=False if a.no_offline_cache else None, cache_dir=a.cache_dir, mode=a.mode,
                  load_ptx=a.load_ptx or env_load_dir(), launch_timeout=getattr(a, "timeout", 60.0),
                  dump_dir=dump_dir)


def cmd_compile(a) -> int:
    from .compiler.dump import env_dump_dir
    from .events import TaskCompiled
    events = []
    dump_dir = a.dump or env_dump_dir()
    with _engine(a, dump_dir=dump_dir) as eng:
        eng.on(lambda ev: events.append(ev.to_dict()) if isinstance(ev, TaskCompiled) else None)
        kts, compiled = eng.compile(a.kernel, target=a.target)
        tasks = {t.name: t for kt in kts for t in kt.tasks}
        rows = []
        for ct in compiled:
            t = tasks[ct.task]
            rows.append({"task": ct.task, "kernel": ct.kernel, "type": t.type, "file": t.file,
                         "lines": list(t.lines), "block_dim": t.block_dim, "params": [p.name for p in t.params],
                         "target": ct.target, "arch": ct.arch, "bytes": len(ct.output), "tier": ct.tier,
                         "seconds": {k: round(v, 6) for k, v in ct.seconds.items()},
                         "override": ct.override, "error": ct.error, "log": ct.log})
        errors = [kt for kt in kts if kt.error]
        if a.json:
            print(json.dumps({"project": str(eng.project.path), "arch": eng.arch, "target": a.target,
                              "mode": a.mode, "tasks": rows, "kernel_errors": {k.kernel: k.error for k in errors},
                              "cache": vars(eng.cache.stats) | {"folder": str(eng.cache.folder),
                                                                "offline": eng.cache.offline},
                              "events": events, "dump": dump_dir}, indent=2))
        else:
            print(f"{eng.project.path}  ({a.target} {eng.arch}, {a.mode})")
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


def cmd_run(a) -> int:
    from .session import Session
    if a.repeat < 1:
        raise QdError("--repeat must be at least 1")
    with _engine(a, backend=a.backend) as eng:
        session = Session()
        eng.on(session.apply)
        resources = session.resources
        results = eng.run(a.workload, repeat=a.repeat, seed=a.seed, warmup=a.warmup)
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


def cmd_show(a) -> int:
    with _engine(a) as eng:
        kts, compiled = eng.compile(target="nvptx")
        for ct in compiled:
            if ct.task == a.task:
                if a.what == "ll":
                    print(ct.ll)
                elif a.what == "source":
                    t = next(t for kt in kts for t in kt.tasks if t.name == a.task)
                    print(f"# {t.file}:{t.lines[0]}-{t.lines[1]}\n{t.source}")
                else:
                    print(ct.ptx or ct.error)
                return 0
        raise QdError(f"no task named {a.task} (known: {', '.join(ct.task for ct in compiled)})")


def cmd_override(a) -> int:
    from .compiler.overrides import OverrideStore
    from .project.loader import load_project
    proj = load_project(a.project)
    store = OverrideStore(proj.path if proj.path.is_dir() else None)
    if a.action == "list":
        for t in store.tasks():
            print(t)
        return 0
    if not a.task:
        raise QdError("override set/revert need a TASK name")
    if a.action == "revert":
        print("reverted" if store.revert(a.task, (a.stage,) if a.stage else ("ptx", "ll")) else "no override for that task")
        return 0
    if not a.file or not os.path.isfile(a.file):
        raise QdError(f"override set needs an existing {'PTX' if a.stage != 'll' else 'LLVM IR'} file, got {a.file!r}")
    from .engine import Engine
    stage = a.stage or "ptx"
    with Engine(proj) as eng:  # compiles in the pool: LLVM never runs in this process
        _, compiled = eng.compile(target="nvptx")
    ct = next((c for c in compiled if c.task == a.task), None)
    if ct is None:
        raise QdError(f"no task named {a.task} (known: {', '.join(c.task for c in compiled)})")
    produced = ct.produced.get(stage)
    if produced is None:
        raise QdError(f"{a.task} has no generated {stage} to derive an override from: {ct.error}")
    with open(a.file, "rb") as fh:
        print(store.write(a.task, fh.read(), produced.data, kind=stage))
    return 0


def cmd_info(a) -> int:
    from .codegen.math_lib import libdevice_path
    from .compiler.cache import default_cache_dir, offline_cache_default
    from .runtime.cuda.detect import cuda_status
    st = cuda_status()
    print(json.dumps({"cuda": vars(st), "libdevice": libdevice_path(), "cache_dir": str(default_cache_dir()),
                      "offline_cache": offline_cache_default()}, indent=2))
    return 0


def main(argv=None, gui_main=None) -> int:
    """`gui_main(args)` opens the window; the launcher (the layer above the GUI) passes it in,
    so this module never imports Qt and the layers stay one-way."""
    def cmd_gui(a) -> int:
        if gui_main is None:
            raise QdError("the window opens from the `qdexplorer` command (or `python -m qdexplorer gui`)")
        return gui_main(a)
    ap = build_parser()
    a = ap.parse_args(argv)
    if a.cmd is None:  # plain `qdexplorer` opens the app on the bundled demo
        a = ap.parse_args(["gui"])
    warnings.simplefilter("default")
    try:
        return {"compile": cmd_compile, "run": cmd_run, "show": cmd_show, "override": cmd_override,
                "info": cmd_info, "gui": cmd_gui}[a.cmd](a)
    except QdError as e:
        print(f"qdexplorer: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
