"""Time to first result: a real program's wall time from process start to the first line it prints,
qdexplorer beside real Quadrants, with an empty compile cache and a warm one.

Programs: the upstream set (`examples/upstream/programs.json`, Quadrants' and Genesis' own code, run
unchanged; those left out on purpose are skipped) and the programs in `benchmarks/programs/` (the
particle and fluid programs of sim_programs.py and cpu_programs.py's axpy, written as a user writes
them: `import quadrants as qd`). Each run is a fresh `python -u` process; the clock starts just
before the process is spawned and stops when its first result line arrives on the pipe (Quadrants'
`[Quadrants] version` banner is not a result). The child answers `import quadrants` with
qdexplorer.lang on our side (the "change the import" workflow) and with Quadrants 1.3.3 on theirs,
and forces `qd.init` onto the CPU on both, as run_upstream.py does.

States, each side with its own cache folder (`XDG_CACHE_HOME`, `QDEXPLORER_CACHE_DIR`,
`QD_OFFLINE_CACHE_FILE_PATH`):
- `cold`: an empty folder, offline cache on (a first run after install);
- `warm`: the same folder after one complete run of the program (a second run);
- `off` (with `--states cold,warm,off`): both offline caches switched off (`QDEXPLORER_OFFLINE_CACHE=0`,
  `QD_OFFLINE_CACHE=0`).
The two sides alternate run by run, so drift in the host's load falls on both. Ratios are
qdexplorer / Quadrants (< 1: qdexplorer first); the summary gives their geometric means (goal:
cold <= 1.0, warm <= 0.5).

Usage: python benchmarks/first_result.py [--reps 1] [--states cold,warm] [--only NAME,...]
       python benchmarks/first_result.py --profile NAME [--state cold|warm]   (our side under cProfile)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

from _common import ROOT, emit, machine

HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM = os.path.join(ROOT, "examples", "upstream")


def programs() -> dict[str, tuple[str, list[str]]]:
    """name -> (script, args)."""
    with open(os.path.join(UPSTREAM, "programs.json")) as f:
        up = json.load(f)
    out = {}
    for name, p in sorted(up.items()):
        if p.get("left_out"):
            continue
        out[name] = (os.path.join(UPSTREAM, p["file"]), list(p["args"]))
    for f in sorted(os.listdir(os.path.join(HERE, "programs"))):
        if f.endswith(".py"):
            out["bench_" + f[:-3]] = (os.path.join(HERE, "programs", f), [])
    return out


def child(side: str, script: str, args: list[str]) -> None:
    """Inside the timed process: bind `quadrants`, force the CPU, run the program as __main__."""
    import runpy
    if side == "qdexplorer":
        import qdexplorer.lang as qd
        sys.modules["quadrants"] = qd
    else:
        import quadrants as qd
    real_init = qd.init

    def init(*a, **kw):
        kw["arch"] = qd.cpu
        return real_init(*a[1:], **kw)
    qd.init = init
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")


def _env(side: str, cache: str, state: str) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=cache, QDEXPLORER_CACHE_DIR=os.path.join(cache, "qdexplorer"),
               QD_OFFLINE_CACHE_FILE_PATH=os.path.join(cache, "quadrants"), PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its .pyc files (see precompile)
    if state == "off":
        env.update(QDEXPLORER_OFFLINE_CACHE="0", QD_OFFLINE_CACHE="0")
    else:
        env.pop("QDEXPLORER_OFFLINE_CACHE", None)
        env.pop("QD_OFFLINE_CACHE", None)
    return env


def timed_run(side: str, script: str, args: list[str], env: dict, timeout: float) -> dict:
    """{'first_s', 'total_s', 'first_line', 'rc'} of one fresh process."""
    cmd = [sys.executable, "-u", os.path.abspath(__file__), "--child", side, script, *args]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True, bufsize=1)
    first, line = None, None
    deadline = t0 + timeout
    assert p.stdout is not None
    for raw in p.stdout:
        if raw.strip() and not raw.startswith("[Quadrants]"):
            first, line = time.perf_counter() - t0, raw.rstrip()
            break
        if time.perf_counter() > deadline:
            break
    try:
        _, err = p.communicate(timeout=max(1.0, deadline - time.perf_counter()))
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    total = time.perf_counter() - t0
    out = {"first_s": round(first, 4) if first is not None else None, "total_s": round(total, 4),
           "first_line": (line or "")[:80], "rc": p.returncode}
    if p.returncode != 0 or first is None:
        out["stderr"] = err.strip()[-400:]
    return out


def _geomean(v: list[float]) -> float | None:
    v = [x for x in v if x and x > 0]
    return round(math.exp(sum(map(math.log, v)) / len(v)), 3) if v else None


def precompile() -> None:
    """Write qdexplorer's .pyc files, as `pip install` does (Quadrants' came with its wheel): a checkout
    run with PYTHONDONTWRITEBYTECODE would otherwise compile ~100 modules in every timed process."""
    import compileall
    for d in ("qdexplorer", "benchmarks", os.path.join("examples", "upstream")):
        compileall.compile_dir(os.path.join(ROOT, d), quiet=1, workers=1)


def measure(names: list[str], states: list[str], reps: int, timeout: float) -> dict:
    progs = programs()
    precompile()
    rows = {}
    sides = ("qdexplorer", "quadrants")
    for i, name in enumerate(names):
        script, args = progs[name]
        row: dict = {}
        for state in states:
            per_side: dict = {s: [] for s in sides}
            runs: dict = {}
            for r in range(reps):
                order = sides if (i + r) % 2 == 0 else sides[::-1]
                for side in order:
                    cache = tempfile.mkdtemp(prefix=f"qdx-first-{side}-")
                    try:
                        env = _env(side, cache, state)
                        if state == "warm":  # one complete run fills the cache; the next is timed
                            timed_run(side, script, args, env, timeout)
                        res = timed_run(side, script, args, env, timeout)
                    finally:
                        shutil.rmtree(cache, ignore_errors=True)
                    runs.setdefault(side, []).append(res)
                    if res["first_s"] is not None:
                        per_side[side].append(res["first_s"])
            ours, theirs = per_side["qdexplorer"], per_side["quadrants"]
            cell = {"qdexplorer_s": min(ours) if ours else None, "quadrants_s": min(theirs) if theirs else None}
            if ours and theirs:
                cell["ratio"] = round(min(ours) / min(theirs), 3)
            for side in sides:
                bad = [x for x in runs[side] if x["rc"] != 0 or x["first_s"] is None]
                if bad:
                    cell[f"{side}_error"] = bad[0].get("stderr", "")[-300:]
            cell["first_lines_equal"] = runs["qdexplorer"][0]["first_line"] == runs["quadrants"][0]["first_line"]
            row[state] = cell
        rows[name] = row
        print(name, json.dumps({s: {k: v for k, v in c.items() if not k.endswith("_error")} for s, c in row.items()}),
              file=sys.stderr)
    summary = {}
    for state in states:
        ratios = [rows[n][state].get("ratio") for n in names]
        ok = [r for r in ratios if r]
        summary[state] = {"geomean_ratio": _geomean(ok), "programs": len(ok),
                          "worst": max(((rows[n][state].get("ratio") or 0, n) for n in names), default=None),
                          "qdexplorer_total_s": round(sum(rows[n][state]["qdexplorer_s"] or 0 for n in names), 3),
                          "quadrants_total_s": round(sum(rows[n][state]["quadrants_s"] or 0 for n in names), 3)}
    return {"programs": rows, "summary": summary}


def profile(name: str, state: str, out: str | None) -> None:
    """Our side of one program under cProfile (the cache in the given state); top entries to stderr."""
    script, args = programs()[name]
    cache = tempfile.mkdtemp(prefix="qdx-first-prof-")
    precompile()
    try:
        env = _env("qdexplorer", cache, state)
        if state == "warm":
            timed_run("qdexplorer", script, args, env, 300)
        dest = out or os.path.join(tempfile.gettempdir(), f"first_result_{name}_{state}.prof")
        subprocess.run([sys.executable, "-m", "cProfile", "-o", dest, os.path.abspath(__file__), "--child",
                        "qdexplorer", script, *args], env=env, check=False)
        import pstats
        pstats.Stats(dest, stream=sys.stderr).sort_stats("cumulative").print_stats(40)
        print(dest, file=sys.stderr)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1, help="runs per side and state (the minimum is kept)")
    ap.add_argument("--states", default="cold,warm")
    ap.add_argument("--only", default="", help="comma-separated program names (default: all)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--profile", default="", help="profile our side of one program instead")
    ap.add_argument("--state", default="cold")
    ap.add_argument("--profile-out", default=None)
    a = ap.parse_args()
    if a.list:
        print("\n".join(programs()))
        return
    if a.profile:
        profile(a.profile, a.state, a.profile_out)
        return
    names = [n for n in a.only.split(",") if n] or list(programs())
    unknown = [n for n in names if n not in programs()]
    if unknown:
        sys.exit(f"first_result.py: unknown program(s) {', '.join(unknown)} (--list names them)")
    t0 = time.perf_counter()
    res = measure(names, [s for s in a.states.split(",") if s], a.reps, a.timeout)
    from importlib.metadata import version  # not `import quadrants`: it prints a banner on stdout
    emit({"benchmark": "first_result", "machine": machine(), "quadrants": version("quadrants"),
          "reps": a.reps, "goal": {"cold": 1.0, "warm": 0.5}, **res,
          "seconds": round(time.perf_counter() - t0, 1)})


if __name__ == "__main__":
    main()
