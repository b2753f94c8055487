"""Running a Quadrants program in a child process and collecting what it compiled and how long it ran.

The child (`child.py`, run by path) forces dumps on and caches off; this side owns the process:
its process group killed on timeout, on SIGTERM/Ctrl-C and when it exits (`process_group`),
stdout/stderr kept in full (the tail in the run, the whole in a named file past 4 MiB), and a result that
says what went wrong (the program's traceback, a signal, a missing Quadrants) instead of raising.
"""
from __future__ import annotations

import json
import os
import math
import shutil
import signal
import sys
import time
from pathlib import Path

from ..compiler.safe_files import output_folder, private_temp_folder, read_checked
from ..ir.errors import QdError
from ..optional_parts import quadrants_hint
from .dumps import parse_dump
from .model import QuadrantsRun
from .process_group import run_group

CHILD = Path(__file__).with_name("child.py")
# Variables that would change what the child dumps or loads behind our back.
_CONTROLLED = ("QD_DUMP_IR", "QD_LOAD_IR", "QUADRANTS_LOAD_PTX", "QD_OFFLINE_CACHE", "QD_DEBUG_DUMP_PATH",
               "QD_ARCH", "QD_KERNEL_PROFILER")
INSTALL_HINT = quadrants_hint()   # a pip install and a frozen app built without Quadrants differ


def check_script(script: str | Path) -> Path:
    p = Path(script)
    if not p.is_file():
        raise QdError(f"Quadrants program not found: {script} (give the path of a .py file)")
    if p.suffix != ".py":
        raise QdError(f"{script}: not a Python file (expected SCRIPT.py)")
    return p.resolve()


def run_program(script: str | Path, args=(), arch: str | None = None, timeout: float = 300.0,
                dump_dir: str | Path | None = None, python: str | None = None,
                load: dict | None = None, env: dict | None = None, cwd: str | Path | None = None,
                dump: bool = True, keep_children: bool = False, wrap: list[str] | None = None) -> QuadrantsRun:
    """Run SCRIPT once. Without `load`: QD_DUMP_IR=1 into `dump_dir` (a new temp folder by default).
    With `load` ({"env": "QUADRANTS_LOAD_PTX" | "QD_LOAD_IR", "folder": ...}, from edits.prepare_load):
    nothing is dumped (a dump would overwrite the edited files) and the folder is the debug_dump_path.
    `dump=False` (a rerun for its timings only): nothing is dumped or kept, and the run lists no
    kernels, only the launches by task name. `keep_children`: leave what the program started in the
    background running after it exits. `wrap`: a command the program runs under (ncu and its options,
    for counters); its process group is the run's, so a timeout or a signal ends it too."""
    script = check_script(script)
    if arch not in (None, "cpu", "cuda"):
        raise QdError(f"--arch must be cpu or cuda, got {arch!r}")
    if not (isinstance(timeout, (int, float)) and math.isfinite(timeout) and timeout > 0):
        raise QdError(f"--timeout must be a number of seconds greater than 0, got {timeout!r}")
    python = python or sys.executable
    scratch = None
    # Quadrants opens its dump files by name: the folder gets the checks of our own dump folders
    if load is not None:
        dump_dir = output_folder(load["folder"], "load folder", create=False)
    elif not dump:
        dump_dir = scratch = private_temp_folder("qdx-quadrants-rerun-")
    else:
        dump_dir = output_folder(dump_dir, "--dump folder") if dump_dir else private_temp_folder("qdx-quadrants-")
    e = {k: v for k, v in os.environ.items() if k not in _CONTROLLED}
    e.update(env or {})
    e["PYTHONUNBUFFERED"] = "1"
    if load is not None:
        e[load["env"]] = "1"
    elif dump:
        e["QD_DUMP_IR"] = "1"
    result_dir = private_temp_folder("qdx-quadrants-result-")   # nobody else can plant or swap the result
    result_path = str(result_dir / "result.json")
    run = QuadrantsRun(str(script), list(args), arch, python, "" if scratch else str(dump_dir), load=load)
    cmd = list(wrap or []) + [python, str(CHILD), result_path, arch or "", str(dump_dir), str(script), *map(str, args)]
    t0 = time.perf_counter()
    try:
        done = run_group(cmd, e, str(cwd) if cwd else None, timeout, keep_children)
    except OSError as ex:
        raise QdError(f"cannot start {python}: {ex}") from None
    finally:  # a run interrupted by SIGTERM or Ctrl-C leaves no result file behind either
        result = _read_result(result_path)
        shutil.rmtree(result_dir, ignore_errors=True)
    run.seconds = time.perf_counter() - t0
    run.returncode, run.timed_out = done.returncode, done.timed_out
    run.stdout, run.stderr = done.stdout, done.stderr
    run.warnings.extend(done.notes)
    known = None
    if result is not None:
        run.quadrants_version = result.get("quadrants_version")
        run.arch = result.get("arch")
        run.init_calls = result.get("init_calls", [])
        known = result.get("kernels")
        if result.get("seconds"):
            run.seconds = result["seconds"]
    run.error = _error(run, result, timeout)
    if arch and run.arch and run.arch != {"cpu": "x64", "cuda": "cuda"}[arch] and run.arch != arch:
        why = next((ln.split("] ", 2)[-1] for ln in run.stderr.splitlines() if "falling back" in ln), "")
        run.warnings.append(f"asked for --arch {arch}, but Quadrants started on {run.arch}" + (f": {why}" if why else ""))
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
    elif load is None:
        run.kernels = parse_dump(dump_dir, known)
    for rec in (result or {}).get("launches", []):
        run.launches.setdefault(rec["task"], []).append(rec["ms"])
    for t in run.tasks():
        t.launches_ms = list(run.launches.get(t.name, []))
    return run


RESULT_MAX_BYTES = 1 << 30


def _read_result(path: str) -> dict | None:
    try:
        doc = json.loads(read_checked(Path(path), RESULT_MAX_BYTES)[0])
        return doc if isinstance(doc, dict) else None
    except (OSError, ValueError, QdError):
        return None
    finally:
        for p in (path, path + ".tmp"):  # the child writes the .tmp, then renames it
            try:
                os.unlink(p)
            except OSError:
                pass


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _error(run: QuadrantsRun, result: dict | None, timeout: float) -> str | None:
    if run.timed_out:
        return f"timed out after {timeout:g} s: the program was killed (raise --timeout if it needs longer)"
    if result is not None and result.get("exit_code") == 3 and result.get("error", "").startswith("cannot import"):
        return f"{result['error']}; {INSTALL_HINT}"
    if result is not None and result.get("error"):
        return f"the program failed:\n{result['error'].rstrip()}"
    if run.returncode and run.returncode < 0:
        try:
            name = signal.Signals(-run.returncode).name
        except ValueError:
            name = f"signal {-run.returncode}"
        return f"the program was killed by {name}; its last output:\n{_tail(run.stderr or run.stdout)}"
    if result is None:
        return f"the program exited with status {run.returncode} without a result; its last output:\n" \
               f"{_tail(run.stderr or run.stdout)}"
    if run.returncode:
        return f"the program exited with status {run.returncode}"
    if not result.get("init_calls"):
        return "the program never called qd.init(): is it a Quadrants program (import quadrants as qd)?"
    return None
