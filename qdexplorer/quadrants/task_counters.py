"""Hardware counters for one task of a real Quadrants program: the generated PTX, or a
`QUADRANTS_LOAD_PTX` edit, under Nsight Compute.

Quadrants owns the launch here, so the profiled process is the program itself, run by the bridge's
child under `ncu` with a kernel filter naming the task (Quadrants' own name, which is the PTX
entry's) and `-c 1`: its first launch. The task's PTX goes in through `QUADRANTS_LOAD_PTX`, also
for the generated side: the loaded copy carries a line table naming the PTX itself
(`compiler/ptx_lines.with_ptx_line_table`), so ncu attributes counters to the lines the user reads
and edits, as for qdexplorer's own tasks. An edit set (`--load-ptx DIR`) is loaded whole, as the
bridge's reruns load it; only the profiled task's file gets the line table. Quadrants logs
"Loading PTX from file" for each file it reads: a profiled copy it did not read is said, not
guessed around.

Reports are read and cached (by the script's text, its arguments, the profiled PTX and every edit
loaded beside it, the ncu version and the preset) exactly as for our own tasks.
"""
from __future__ import annotations


import hashlib
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from ..compiler.cache import default_cache_dir
from ..compiler.safe_files import output_folder, private_temp_folder, write_atomic, write_file
from ..counters import command, probe as P
from ..counters.cache import CountersCache, profile_key
from ..counters.collect import BAD_REPORT, CountersResult
from ..counters.presets import preset as get_preset
from ..compiler.ptx_lines import with_ptx_line_table
from ..counters.report import ReaderMissing, ReportError, read_report
from ..ir.errors import QdError
from .edits import LOADED_PTX, EditFolder, prepare_load
from .model import QuadrantsRun, QuadrantsTask
from .program import run_program

GENERATED = "generated"


def _sha(data: str | bytes) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def task_ptx(baseline: QuadrantsRun, task: str) -> tuple[QuadrantsTask, str]:
    """The task (by stable or Quadrants' name) and its generated PTX; a clear error when there is none."""
    if not baseline.ok:
        raise QdError(f"{baseline.script}: the program failed, so it has no tasks to profile: {baseline.error}")
    t = baseline.task(task)
    if t is None:
        names = ", ".join(x.stable_name for x in baseline.tasks(include_internal=False)) or "none"
        raise QdError(f"no task named {task} in this run of {baseline.script} (tasks: {names})")
    ptx = t.text("ptx").replace("\x00", "")   # Quadrants' dump ends with the driver's NUL: no part of the text
    if not ptx:
        raise QdError(f"{baseline.script}: the run wrote no PTX for {t.name} (it ran on {baseline.arch or '?'}; "
                      f"counters need --arch cuda on a machine with an NVIDIA GPU)")
    return t, ptx


@dataclass
class Prepared:
    """One side of a profile, ready to run: the load folder Quadrants reads, and the PTX profiled."""
    task: str          # Quadrants' name (the PTX entry's, which ncu's kernel filter names)
    stable: str        # the name that survives kernels added above it
    target: str        # the file Quadrants reads the task's module from
    load: dict         # run_program's `load` record
    ptx: str           # the module's text as the user sees it (generated, or the edit)
    key: str           # the cache key


def prepare(script: str | Path, baseline: QuadrantsRun, task: str, args, preset: str, edits, version: str,
            work: Path) -> Prepared:
    t, generated = task_ptx(baseline, task)
    target = Path(t.files["ptx"]).name  
    if edits is not None:
        load = prepare_load(EditFolder(edits, "ptx"), baseline, work / "load")
    else:
        load = {"kind": "ptx", "env": "QUADRANTS_LOAD_PTX", "folder": str(work / "load"), "edits": []}
        output_folder(work / "load", "load folder")
    folder = Path(load["folder"])
    ptx = (folder / target).read_text().replace("\x00", "") if (folder / target).is_file() else generated
    others = sorted(_sha(f.read_bytes()) for f in folder.iterdir() if f.is_file() and f.name != target)
    key = profile_key(bridge=1, script=_sha(Path(script).read_bytes()), args=list(map(str, args)), task=t.name,
                      ptx=_sha(ptx), others=others, ncu=version, preset=preset)
    return Prepared(t.name, t.stable_name, target, load, ptx, key) 


def make_report(script: str | Path, prep: Prepared, args, preset: str, ncu: str, work: Path,
                timeout: float = command.TIMEOUT_S, python: str | None = None) -> tuple[CountersResult, int, Path]:
    """Run the program under ncu with `prep`'s load folder: the state (with the passes) and the report's
    path (`work/report.ncu-rep`, when the state is 'ok'). Reading it needs no GPU: the Ray path and the
    GPU test read it elsewhere."""
    shown = write_file(work / f"{prep.stable}.ptx", prep.ptx)  # the text ncu imports as the "source"
    write_atomic(Path(prep.load["folder"]), prep.target, with_ptx_line_table(prep.ptx, str(shown)).encode())
    report = work / "report.ncu-rep"
    run = run_program(script, args, arch="cuda", timeout=timeout, python=python, load=prep.load,
                      env={"QDEXPLORER_KERNEL_PROFILER": "0"},   # one profiler at a time
                      wrap=command.ncu_prefix(ncu, prep.task, get_preset(preset), report, nvtx=False))
    res, passes = _outcome(run, report, timeout)
    res.task, res.preset = prep.stable, preset
    if res.state == "ok" and not _read_by_quadrants(run, prep.target):
        res.warnings.append(f"Quadrants did not log loading {prep.target}: the counters are of the PTX it "
                            f"compiled itself, and the per-line counters may be missing")
    return res, passes, shown


def read_profile(res: CountersResult, prep: Prepared, report: Path, shown: Path, passes: int, version: str,
                 variant: str) -> CountersResult:
    """`res` (an 'ok' outcome of `make_report`) with the report read into its record."""
    try:
        rec = read_report(report, prep.task, res.preset, prep.ptx, str(shown))
    except ReaderMissing as e:
        return CountersResult(res.task, res.preset, P.NO_READER, str(e), seconds=res.seconds)
    except ReportError as e:
        return CountersResult(res.task, res.preset, BAD_REPORT, str(e), seconds=res.seconds)
    rec.task, rec.ncu_version, rec.variant = prep.stable, version, variant
    rec.passes = rec.passes or passes
    res.record = rec
    return res


def profile_task(script: str | Path, task: str, args=(), preset: str = "quick", edits: str | Path | None = None,
                 baseline: QuadrantsRun | None = None, setting: str | None = None,
                 timeout: float = command.TIMEOUT_S, fresh: bool = False, python: str | None = None,
                 cache: CountersCache | None = None, repeat: int = 0) -> CountersResult:
    """Counters of `task` in one run of the program: with the PTX it generates, or with the edits in
    `edits` loaded (`QUADRANTS_LOAD_PTX`). `baseline` is a dumped run on CUDA (made here when not given).
    `repeat` > 0: another profile of the same run, cached under its own key (an A/B's repeats)."""
    get_preset(preset)
    cap = P.probe(setting, "cuda")
    if not cap.ok:
        return CountersResult(task, preset, cap.state, cap.message)
    if baseline is None:
        baseline = run_program(script, args, arch="cuda", timeout=timeout, python=python)
    work = private_temp_folder("qdx-quadrants-counters-")
    try:
        prep = prepare(script, baseline, task, args, preset, edits, cap.version, work)
        if repeat:
            prep = replace(prep, key=profile_key(base=prep.key, repeat=repeat))
        cache = cache or CountersCache(default_cache_dir() / "counters")
        if not fresh and (rec := cache.get(prep.key)) is not None:
            return CountersResult(prep.stable, preset, "ok", record=rec, report=str(cache.report_path(prep.key) or ""))
        try:
            import ncu_report  # noqa: F401 - a profile nobody here can read is not worth making
        except ImportError:
            return CountersResult(prep.stable, preset, P.NO_READER, P.MESSAGES[P.NO_READER])
        res, passes, shown = make_report(script, prep, args, preset, cap.ncu, work, timeout, python)
        if res.state in (P.RESTRICTED, P.CONTAINER):   # kept for the session, as for our own tasks
            P.learn(setting, "cuda", P.Capability(res.state, res.message, cap.ncu, cap.version))
        if res.state != "ok":
            return res
        res = read_profile(res, prep, work / "report.ncu-rep", shown, passes, cap.version,
                           GENERATED if edits is None else str(edits))
        if res.record is not None:
            cache.put(prep.key, res.record, work / "report.ncu-rep")
            res.report = str(cache.report_path(prep.key) or "")
        return res
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _read_by_quadrants(run: QuadrantsRun, target: str) -> bool:
    """Quadrants' own log says it read `target` (one "Loading PTX from file: PATH" line per file)."""
    return Path(target).stem in {Path(m).name for m in LOADED_PTX.findall(run.stdout + "\n" + run.stderr)}


def _outcome(run: QuadrantsRun, report: Path, timeout: float) -> tuple[CountersResult, int]:
    """ncu's end, as for our own child: one state, one line; the program's own failure named."""
    if run.timed_out:
        return CountersResult("", "", command.TIMEOUT, f"ncu and the program did not finish within {timeout:g} s and "
                              f"were stopped (raise --timeout, or try the quick preset)", seconds=run.seconds), 0
    out = command.classify(run.returncode or 0, run.stdout + "\n" + run.stderr, report, run.seconds)
    if out.state == command.OK:
        res = CountersResult("", "", "ok", seconds=run.seconds, warnings=list(run.warnings))
        if run.error and "without a result" not in run.error:
            res.warnings.append(f"the program did not end cleanly under ncu: {run.error.splitlines()[0]}")
        return res, out.passes
    msg = out.message
    if out.state == command.FAILED and run.error and "without a result" not in run.error:
        msg = f"the program failed under ncu: {run.error.strip().splitlines()[-1]}"
    return CountersResult("", "", out.state, msg, seconds=run.seconds), 0


def compare_task(script: str | Path, task: str, edits: str | Path, args=(), preset: str = "quick",
                 **kw) -> tuple[QuadrantsRun, CountersResult, CountersResult]:
    """A/B: the task with the PTX Quadrants generates, then with the edit set loaded; one dumped run
    first, which both sides share (and which names the tasks the edits must match)."""
    baseline = kw.pop("baseline", None) or run_program(script, args, arch="cuda", timeout=kw.get("timeout", 300.0),
                                                       python=kw.get("python"))
    repeats = kw.pop("repeats", 1)
    a = repeated(lambda i: profile_task(script, task, args, preset, None, baseline, repeat=i, **kw), repeats)
    b = repeated(lambda i: profile_task(script, task, args, preset, edits, baseline, repeat=i, **kw), repeats)
    return baseline, a, b


def repeated(profile, repeats: int) -> CountersResult:
    """`repeats` profiles of one side (`profile(i)`), as one result whose `repeats` an A/B's verdicts
    use (`counters.diff`); the first that fails stands for the side."""
    res = profile(0)
    if not res.ok or repeats < 2:
        return res
    res.repeats = [res.record]
    for i in range(1, repeats):
        more = profile(i)
        if not more.ok or more.record is None:
            return more
        res.repeats.append(more.record)
    return res
