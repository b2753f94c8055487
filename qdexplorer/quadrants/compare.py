"""Generated against edited: the same program rerun alternately (A B A B …), each task's launch times
compared round by round.

Running the generated and the edited program once each, one after the other, made an untouched
task come out 9% `faster` on the H200: whatever drifted between the two runs (clocks, the other
processes) read as a change, and ten launches a side could not show it. So a comparison now reruns
both programs `rounds` times, alternating, each program run being one round of launches: the
rounds pair up (run i of the generated program beside run i of the edited one), and bench/stats.py
compares them as it compares interleaved bench runs (hierarchical bootstrap, noise floor, `unsure`).
"""
from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from ..bench.stats import BOOTSTRAP, compare_rounds, default_threshold
from ..ir.errors import QdError
from .edits import EditFolder, confirm_used, prepare_load
from .model import QuadrantsRun
from .program import run_program

ROUNDS = 5   # program runs a side
# Quadrants' kernel profiler: CUDA events (about 0.5 µs) on CUDA, a host clock in microseconds elsewhere
RESOLUTION_MS = {"cuda": 0.0005}


def _runs(r: QuadrantsRun | Sequence[QuadrantsRun]) -> list[QuadrantsRun]:
    return [r] if isinstance(r, QuadrantsRun) else list(r)


INTERNAL_REASON = "one of Quadrants' own kernels, not the program's: no verdict (its launches are listed, not judged)"


def compare_runs(generated: QuadrantsRun | Sequence[QuadrantsRun], edited: QuadrantsRun | Sequence[QuadrantsRun],
                 load: dict | None = None, n_boot: int = BOOTSTRAP) -> list[dict]:
    """One row per task of the first generated run (the one with dumps) that launched in either side:
    medians and minimums over every run of each side, edited/generated, and the verdict of
    bench/stats.py with the runs as rounds, run i of each side paired (they ran side by side).
    Quadrants' own kernels (`internal`: to_numpy, ext_arr_to_ndarray…, launched once a run, often cold)
    are never given a verdict: their row says `unsure` with the reason."""
    gen, edi = _runs(generated), _runs(edited)
    backend = "cuda" if gen[0].arch == "cuda" else "cpu"
    threshold = default_threshold([backend], interleaved=True)
    edited_tasks = {e["task"]: e for e in (load or {}).get("edits", [])}
    rows = []
    for kernel, t in ((k, t) for k in gen[0].kernels for t in k.tasks):
        # pairs of runs in which the task launched on both sides (a run that failed midway has fewer)
        pairs = [(g.launches.get(t.name, []), e.launches.get(t.name, [])) for g, e in zip(gen, edi)]
        pairs = [(a, b) for a, b in pairs if a and b]
        a = [ms for r in gen for ms in r.launches.get(t.name, [])]
        b = [ms for r in edi for ms in r.launches.get(t.name, [])]
        if not a and not b:
            continue
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        e = edited_tasks.get(t.name)
        stats = compare_rounds(t.name, [p[0] for p in pairs], [p[1] for p in pairs],
                               RESOLUTION_MS.get(backend, 0.001), threshold=threshold, paired=True,
                               n_boot=n_boot) if pairs else None
        if stats is not None and kernel.internal:
            stats.verdict, stats.reason, stats.rounds_needed = "unsure", INTERNAL_REASON, None
        rows.append({"task": t.name, "stable_name": t.stable_name, "kernel": t.kernel, "internal": kernel.internal,
                     "edited": e is not None, "state": e["state"] if e else None,
                     "used": e.get("used") if e else None,
                     "generated": {"launches": len(a), "median_ms": ma, "min_ms": min(a) if a else None},
                     "edited_run": {"launches": len(b), "median_ms": mb, "min_ms": min(b) if b else None},
                     "rounds": len(pairs),
                     "ratio": stats.ratio if stats else ((mb / ma) if ma and mb is not None else None),
                     "stats": stats.to_dict() if stats else None})
    return rows


def edit_and_rerun(script, edit_folder, kind: str = "ptx", args=(), arch=None, timeout=300.0, python=None,
                   baseline=None, dump_dir=None, rounds: int = ROUNDS, keep_children: bool = False,
                   on_run: Callable[[str, int, QuadrantsRun], None] | None = None) -> dict:
    """The generated program with dumps (unless `baseline` is given), then the edited and the generated
    program alternately until each has run `rounds` times: G E G E … (the first G being the baseline).
    Never raises for a failing program: each run carries its own error, and the reruns stop at the
    first failure. `on_run(side, round, run)` hears of each run as it ends ('generated' | 'edited')."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    edits = EditFolder(edit_folder, kind)
    # what the folder alone can refuse is refused before the program runs (seconds of Quadrants each):
    # a link or unreadable file, no edits at all, PTX edits for the CPU
    found = edits.edits()
    if not found:
        raise QdError(f"no *{edits.kind.suffix} edits in {edits.folder}")
    if kind == "ptx" and arch == "cpu":
        raise QdError(f"{found[0].path}: PTX exists only on CUDA: use --arch cuda, or edit the LLVM IR with --load-ll")
    common = dict(arch=arch, timeout=timeout, python=python, keep_children=keep_children)
    if baseline is None:
        baseline = run_program(script, args, dump_dir=dump_dir, **common)
        if on_run:
            on_run("generated", 0, baseline)
    if not baseline.ok:
        return {"baseline": baseline, "edited": None, "load": None, "comparison": [], "generated_runs": [baseline],
                "edited_runs": []}
    load = prepare_load(edits, baseline)
    generated: list[QuadrantsRun] = [baseline]
    edited: list[QuadrantsRun] = []

    def rerun(side: str, rnd: int, runs: list[QuadrantsRun], **how) -> bool:
        """One more run of `side`, kept in `runs` and heard of; whether it went well."""
        run = run_program(script, args, **how, **common)
        runs.append(run)
        if on_run:
            on_run(side, rnd, run)
        return run.ok

    for rnd in range(rounds):
        if rnd and not rerun("generated", rnd, generated, dump=False):
            break
        if not rerun("edited", rnd, edited, load=load):
            break
    confirm_used(load, edited[0])
    return {"baseline": baseline, "edited": edited[0], "load": load, "generated_runs": generated,
            "edited_runs": edited, "comparison": compare_runs(generated, edited, load)}
