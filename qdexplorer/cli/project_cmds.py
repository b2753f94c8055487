"""`qdexplorer compile | run | show | override | info`: one project's tasks, headless.

`show` and `override list/revert` read the compile index and never import the project; `compile`
and `run` drive an Engine and read its session, the same model the window shows.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

from ..codegen.math_lib import libdevice_path
from ..compiler.cache import PtxCache, default_cache_dir, offline_cache_default
from ..compiler.compile_index import CompileIndex, TaskArtifact
from ..compiler.dump import env_dump_dir
from ..compiler.sass import SassNotAvailable, disassemble as disassemble_sass
from ..events import Event, TaskCompiled
from ..ir.errors import QdError
from ..project.data_folder import override_store
from ..project.loader import ProjectError, bundled_demo, read_config
from ..runtime.cuda.detect import cuda_status
from .common import backend_of, locked_clocks, make_engine, report_load_dir, said_once


def cmd_compile(a: argparse.Namespace) -> int:
    events: list[dict] = []
    dump_dir = a.dump or env_dump_dir()

    def on(ev: Event) -> None:
        if isinstance(ev, TaskCompiled):
            events.append(ev.to_dict())
    with make_engine(a, dump_dir=dump_dir) as eng:
        eng.subscribe(on)
        kts, compiled = eng.compile(a.kernel, target=a.target)
        report_load_dir(eng, [ct.task for ct in compiled])
        tasks = {t.name: t for kt in kts for t in kt.tasks}
        rows: list[dict[str, Any]] = []
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
                              "cache": eng.cache_info(), "events": events, "dump": dump_dir}, indent=2))
        else:
            print(f"{eng.project.path}  ({a.target} {eng.arch}, {eng.mode})")
            for r in rows:
                total = sum(r["seconds"].values())
                flag = f"  override:{r['override']}" if r["override"] else ""
                status = f"ERROR {r['error']}" if r["error"] else f"{r['bytes']:>7} B  {total * 1e3:8.1f} ms  {r['tier']}"
                print(f"  {r['task']:<48} {r['type']:<10} {status}{flag}")
            for k in errors:
                print(said_once(k.error), file=sys.stderr)
            if dump_dir:
                print(f"dumped to {dump_dir}")
        if errors:
            return 2
        return 1 if any(r["error"] for r in rows) else 0


def cmd_run(a: argparse.Namespace) -> int:
    if a.repeat < 1:
        raise QdError("--repeat must be at least 1")
    with locked_clocks(a, {backend_of(a, a.backend)}), make_engine(a, backend=a.backend) as eng:
        results = eng.run(a.workload, repeat=a.repeat, seed=a.seed, warmup=a.warmup)
        session = eng.session   # the one store: launches and resources as the window sees them
        report_load_dir(eng, [task for (_, task) in session.compiled])
        runs = {rec.result.workload: rec for rec in session.runs if rec.result is not None}
        out: list[dict[str, Any]] = []
        for r in results:
            rec = runs.get(r.workload)
            timings = rec.timings if rec is not None else []
            per = rec.times if rec is not None else {}
            out.append({"workload": r.workload, "kernel": r.kernel, "backend": r.backend, "status": r.status,
                        "check_error": r.check_error, "error": r.error, "skipped": r.skipped,
                        "fault_task": r.fault_task,
                        "tasks": [{"task": t, "launches": len(v), "mean_ms": statistics.fmean(v),
                                   "min_ms": min(v), "median_ms": statistics.median(v),
                                   "resources": {k: x for k, x in session.resources.get(t, {}).items()
                                                 if k not in ("jit_log", "source")}}
                                  for t, v in per.items()],
                        "timings": [tm.to_dict() for tm in timings]})
        if a.json:
            print(json.dumps({"project": str(eng.project.path), "backend": eng.backend, "arch": eng.arch,
                              "repeat": a.repeat, "workloads": out}, indent=2))
        else:
            for w in out:
                print(f"{w['status'].upper():<8} {w['workload']:<24} ({w['kernel']}, {w['backend']})")
                for t in w["tasks"]:
                    res = t["resources"]
                    line = (f"  {res['registers']:>3} regs  {res['static_shared_bytes']:>5} B shared  "
                            f"occupancy {res['occupancy']:.0%}") if res else ""
                    print(f"         {t['task']:<48} {t['launches']:>4}x  median {t['median_ms']:9.4f} ms  "
                          f"min {t['min_ms']:9.4f} ms{line}")
                for key in ("check_error", "error", "skipped"):
                    if w[key]:
                        print(f"         {key.replace('_', ' ')}: {said_once(w[key])}")
            counts: dict[str, int] = {}
            for w in out:
                counts[w["status"]] = counts.get(w["status"], 0) + 1
            print(", ".join(f"{n} {s}" for s, n in sorted(counts.items())) + f"  ({eng.backend}, {eng.arch})")
        # a kernel that does not compile is bad input (2), as `compile` says of it; a failed check or fault is 1
        if any((k := session.kernels.get(r.kernel)) is not None and k.error for r in results):
            return 2
        return 0 if all(w["status"] in ("passed", "skipped") for w in out) else 1


def _artifacts(a: argparse.Namespace) -> tuple[Path, CompileIndex]:
    """The project's compile index, opened without importing the project (toml only)."""
    path = Path(a.project).resolve() if a.project else bundled_demo()
    if not path.exists():
        raise ProjectError(f"project folder not found: {path}")
    cfg = read_config(path) if path.is_dir() else None
    offline = False if getattr(a, "no_offline_cache", False) else (cfg.offline_cache if cfg else None)
    cache = PtxCache(getattr(a, "cache_dir", None) or (cfg.cache_dir if cfg else None), offline=offline)
    return path, CompileIndex(cache, path)


def _tasks_without_import(a: argparse.Namespace, index: CompileIndex, path: Path) -> dict[str, TaskArtifact]:
    """Tasks of the last compile; only the bundled demo (our own code) is compiled on demand."""
    try:
        return index.tasks("nvptx", a.arch)
    except QdError:
        if path != bundled_demo():
            raise
        with make_engine(a) as eng:
            eng.compile(target="nvptx")
        return index.tasks("nvptx", a.arch or None)


def _host_tasks(index: CompileIndex) -> dict[str, TaskArtifact] | None:
    """The tasks of the last CPU-backend compile (`run`/`bench` on the CPU compile host code only), if any."""
    try:
        return index.tasks("host")
    except QdError:
        return None


def cmd_show(a: argparse.Namespace) -> int:
    """From compiled artifacts (the cache and its index): `show` never runs the project's code. After
    `run` or `bench` on the CPU (host code only) the source and the host LLVM IR are there; the PTX
    needs a `compile`, and the message says so instead of "compile first"."""
    path, index = _artifacts(a)
    try:
        arts = _tasks_without_import(a, index, path)
    except QdError:
        host = _host_tasks(index) if not a.arch else None
        if host is None:
            raise
        if a.what in ("ptx", "sass"):
            raise QdError(f"no PTX for {path} yet: the last compile was for the CPU backend (`run` and `bench` "
                          f"there compile host code only); run `qdexplorer compile {path}` for the PTX, or use "
                          f"--what ll / --what source") from None
        if a.what == "ll":
            print("# LLVM IR for the host (CPU backend): `qdexplorer compile` makes the NVPTX one", file=sys.stderr)
        arts = host
    art = arts.get(a.task)
    if art is None:
        raise QdError(f"no task named {a.task} in the last compile of {path} "
                      f"(known: {', '.join(sorted(arts)) or 'none'})")
    if a.what == "source":
        print(f"# {art.file}:{art.lines[0]}-{art.lines[1]}\n{art.source}")
        return 0
    stage = "ptx" if a.what == "sass" else a.what
    ov = override_store(path).get(a.task, stage)
    if ov is not None and ov.problem:
        raise QdError(f"the {stage.upper()} override {ov.path} is refused: {ov.problem}")
    text = ov.data.decode() if ov is not None else index.text(art, stage)
    if a.what == "sass":
        return _print_sass(a, text)
    print(text)
    return 0


def _print_sass(a: argparse.Namespace, ptx: str) -> int:
    """SASS of `ptx` for --sm, each instruction followed by `// ptx LINE · FILE:LINE` (or JSON with the maps)."""
    try:
        listing = disassemble_sass(ptx, a.sm)
    except (ValueError, SassNotAvailable) as e:   # the message says why (or how to get the tools)
        raise QdError(str(e)) from None
    if a.json:
        print(json.dumps({"arch": listing.arch, "tool": listing.tool, "text": listing.text,
                          "to_ptx": listing.to_ptx,
                          "to_source": {k: [Path(f).name, n] for k, (f, n) in listing.to_source.items()}}, indent=1))
        return 0
    out = []
    for i, line in enumerate(listing.text.splitlines(), start=1):
        p, src = listing.to_ptx.get(i), listing.to_source.get(i)
        note = (f"ptx {p}" if p else "") + (f" · {Path(src[0]).name}:{src[1]}" if src else "")
        out.append(f"{line:<72} // {note}" if note else line)
    print("\n".join(out))
    return 0


def cmd_override(a: argparse.Namespace) -> int:
    """`list` and `revert` never import the project; `set` reads the generated text's hash from
    the compile index when there is one (else it compiles, which imports the project). The store is
    the project's own, or its folder under the user data folder when the project is read-only."""
    path, index = _artifacts(a)
    store = override_store(path)
    stage = a.stage or "ptx"
    target = a.target if stage == "ll" else "nvptx"  # LLVM IR is per target; PTX is nvptx's
    try:
        arts: dict[str, TaskArtifact] | None = index.tasks(target, a.arch)
    except QdError:
        arts = None  # never compiled here
    if a.action == "list":
        if arts is None:
            rows = [(t, "-", "unknown", "not compiled yet: run `qdexplorer compile` to check it") for t in store.tasks()]
        else:
            rows = store.states({t: {"ptx": x.generated_sha256, "ll": x.ll_sha256 or None} for t, x in arts.items()})
        for t, kind, state, note in rows:
            print(f"{t}  {state}" + (f"  [{kind}]" if kind != "ptx" else "") + (f"  ({note})" if note else ""))
        if not rows:  # an empty answer would read as a failure to look
            print(f"no overrides for {path}")
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
    if art is not None and generated and stage == "ll":  # the text itself, so the edit's signature is checked now
        try:
            generated = index.text(art, "ll")
        except QdError:
            pass  # only its hash: the signature is checked at the next compile
    if generated:
        print(store.write(a.task, edited, generated, kind=stage, target=target if stage == "ll" else None))
        return 0
    with make_engine(a) as eng:  # compiles in the pool: LLVM never runs in this process
        _, compiled = eng.compile(target=target)
        if not any(c.task == a.task for c in compiled):
            raise QdError(f"no task named {a.task} (known: {', '.join(c.task for c in compiled)})")
        print(eng.set_override(a.task, edited, kind=stage, target=target))
    return 0


def cmd_info(a: argparse.Namespace) -> int:
    """Lines a person reads by default; `--json` for scripts (it printed raw JSON only)."""
    st = cuda_status()
    doc = {"cuda": vars(st), "libdevice": libdevice_path(), "cache_dir": str(default_cache_dir()),
           "offline_cache": offline_cache_default()}
    if getattr(a, "json", False):
        print(json.dumps(doc, indent=2))
        return 0
    if st.available:
        cuda = (f"{st.name} ({st.arch}, {st.sm_count} SMs, {st.memory_gb:.0f} GB), driver {st.driver_version}")
    else:
        cuda = f"not available: {st.reason}; the CPU backend runs everything, PTX is still generated"
    rows = [("CUDA", cuda),
            ("libdevice", libdevice_path() or "not found (pip install 'qdexplorer[libdevice]')"),
            ("cache folder", f"{default_cache_dir()} (offline cache {'on' if offline_cache_default() else 'off'})")]
    for key, value in rows:
        print(f"{key + ':':<14}{value}")
    return 0


COMMANDS = {"compile": cmd_compile, "run": cmd_run, "show": cmd_show, "override": cmd_override, "info": cmd_info}
