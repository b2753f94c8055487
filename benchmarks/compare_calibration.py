"""How often the A/B comparison cries wolf, and how often it finds a real change: one JSON document.

Two-kernel project: `hot` and `steady`, each a dependent loop of `--steps` steps over 2048 elements
(one chunk on the CPU backend; on CUDA a long chain per thread). The slowed variants make `hot`'s
loop 1.05x, 1.2x and 2x as long (a longer loop of known length, in a copy of the project), so the
true effect is known; `steady` is never touched. Per backend and per pair:

- A/A saved: the unchanged project benched twice (two separate runs), compared;
- A/A fresh: the unchanged project interleaved with itself (A B A B …), compared;
- detection, saved and fresh, for each slowdown: the unchanged project against the slowed copy.

Counted: pairs where any task came out `slower` or `faster` in A/A (the issue allows 1 in 20), the
slowed task found `slower`, and whether the untouched task stayed `same` or `unsure` every time.
`--cpu-load N` runs N busy processes beside it for the duration (the CPU "under load" check).

    python benchmarks/compare_calibration.py [--backend cpu|cuda] [--pairs 20] [--cpu-load 1] [--out DIR]
    python benchmarks/compare_calibration.py --backend cuda --pairs 20 --settle first   # CUDA, in a few minutes
"""
import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time

from _common import machine

SOURCE = """
import numpy as np
import qdexplorer.lang as qd


@qd.kernel
def hot(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range({hot_steps}):
            acc = acc * 0.999 + 0.001
        x[i] = acc


@qd.kernel
def steady(x: qd.types.ndarray(dtype=qd.f32, ndim=1)):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range({steps}):
            acc = acc * 0.999 + 0.002
        x[i] = acc


@qd.workload(hot)
def hot_2k(rng):
    return dict(x=rng.standard_normal(2048, dtype=np.float32))


@qd.workload(steady)
def steady_2k(rng):
    return dict(x=rng.standard_normal(2048, dtype=np.float32))
"""
HOT, STEADY = "hot_kernel_0_range_for", "steady_kernel_0_range_for"
FACTORS = (1.05, 1.2, 2.0)


def write_project(folder: str, steps: int, factor: float) -> str:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "kernels.py"), "w") as fh:
        fh.write(SOURCE.format(steps=steps, hot_steps=round(steps * factor)))
    return folder


def _spin(stop):
    while not stop.is_set():
        sum(i * i for i in range(10000))


def tally(cmps, slowed: str | None) -> dict:
    """Verdict counts over the pairs: per task, pairs with a false slower/faster, detections."""
    out: dict = {"pairs": len(cmps), "verdicts": {}, "ratios": {}, "same_reaching_past_threshold": 0}
    false = 0
    for cmp in cmps:
        wrong = False
        for t in cmp.tasks:
            # `same` must mean the whole interval lies inside ±threshold (issue 31): count any that does not
            if t.verdict == "same" and not (1 - cmp.threshold < t.ci[0] and t.ci[1] < 1 + cmp.threshold):
                out["same_reaching_past_threshold"] += 1
            out["verdicts"].setdefault(t.task, {}).setdefault(t.verdict, 0)
            out["verdicts"][t.task][t.verdict] += 1
            out["ratios"].setdefault(t.task, []).append(round(t.ratio, 4))
            if t.task != slowed and t.verdict in ("slower", "faster"):
                wrong = True
        false += wrong
    out["false_pairs"] = false  # pairs where an unchanged task came out slower or faster
    if slowed:
        out["detected"] = out["verdicts"].get(slowed, {}).get("slower", 0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--pairs", type=int, default=20)
    ap.add_argument("--steps", type=int, default=None, help="loop steps (default: 2000 on the CPU, 20000 on CUDA)")
    ap.add_argument("--repeat", type=int, default=20, help="saved runs: timed repeats (in --rounds rounds)")
    ap.add_argument("--rounds", type=int, default=10, help="saved runs: rounds; fresh comparisons: A/B rounds")
    ap.add_argument("--per-round", type=int, default=3, help="fresh comparisons: repeats per side per round")
    ap.add_argument("--cpu-load", type=int, default=0, help="busy processes to run beside it")
    ap.add_argument("--settle", choices=("each", "first"), default="each",
                    help="CUDA: wait for the SM clock to settle before every saved run (each, as `bench` does), "
                         "or only before each engine's first one (first: the pairs keep the GPU busy from one "
                         "run to the next, and it saves up to 3 s a run; the quick way to run 20 CUDA pairs)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop after the pair that passes this many seconds and report the pairs made (so a "
                         "time-limited run still prints its JSON)")
    ap.add_argument("--aa-only", action="store_true",
                    help="only the A/A comparisons (saved and fresh), no detection pairs: the quick check that "
                         "unchanged code is never slower/faster and never `same` with an interval past the threshold")
    ap.add_argument("--out", default=os.environ.get("OUT", "out"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    steps = a.steps or (20000 if a.backend == "cuda" else 2000)

    from qdexplorer.bench.compare import compare_runs
    from qdexplorer.bench.runner import Side, bench, interleaved
    from qdexplorer.engine import Engine

    root = tempfile.mkdtemp(prefix="qdx-calibration-")
    folders = {f: write_project(os.path.join(root, f"x{f}"), steps, f) for f in (1.0,) + (() if a.aa_only else FACTORS)}
    stop = multiprocessing.Event()
    load = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(a.cpu_load)]
    for p in load:
        p.start()
    t0 = time.perf_counter()
    results: dict = {"aa": {"saved": [], "fresh": []}, "detect": {str(f): {"saved": [], "fresh": []} for f in (() if a.aa_only else FACTORS)}}
    try:
        engines = {f: Engine(folder, backend=a.backend, cache_dir=os.path.join(root, "cache")) for f, folder in
                   folders.items()}
        base = engines[1.0]
        for pair in range(a.pairs):
            run = lambda eng: bench(eng, repeat=a.repeat, rounds=a.rounds, seed=pair,  # noqa: E731
                                    settle=a.settle == "each" or pair == 0)
            fresh = lambda eng_b: interleaved(Side("A", base), Side("B", eng_b), rounds=a.rounds,  # noqa: E731
                                              per_round=a.per_round, seed=pair)
            results["aa"]["saved"].append(compare_runs(run(base), run(base)))
            results["aa"]["fresh"].append(compare_runs(*fresh(base)))
            for f in (() if a.aa_only else FACTORS):
                results["detect"][str(f)]["saved"].append(compare_runs(run(base), run(engines[f])))
                results["detect"][str(f)]["fresh"].append(compare_runs(*fresh(engines[f])))
            print(f"pair {pair + 1}/{a.pairs} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
            if a.max_seconds is not None and time.perf_counter() - t0 > a.max_seconds and pair + 1 < a.pairs:
                print(f"stopping after {pair + 1} pairs: --max-seconds {a.max_seconds:g} passed", file=sys.stderr)
                break
        for eng in engines.values():
            eng.close()
    finally:
        stop.set()
        for p in load:
            p.join(5)
    made = len(results["aa"]["saved"])
    doc = {"benchmark": "compare_calibration", "backend": a.backend, "pairs": made, "pairs_asked": a.pairs,
           "steps": steps,
           "repeat": a.repeat, "rounds": a.rounds, "per_round": a.per_round, "cpu_load": a.cpu_load,
           "settle": a.settle,
           "seconds": round(time.perf_counter() - t0, 1),
           "aa": {k: tally(v, None) for k, v in results["aa"].items()},
           "detect": {f: {k: tally(v, HOT) for k, v in d.items()} for f, d in results["detect"].items()},
           "thresholds": {"saved": results["aa"]["saved"][0].threshold if made else None,
                          "fresh": results["aa"]["fresh"][0].threshold if made else None},
           "machine": machine()}
    doc["summary"] = {
        "aa_false_pairs": {k: v["false_pairs"] for k, v in doc["aa"].items()},
        "aa_verdicts": {k: {task: c for task, c in v["verdicts"].items()} for k, v in doc["aa"].items()},
        "aa_same_reaching_past_threshold": {k: v["same_reaching_past_threshold"] for k, v in doc["aa"].items()},
        "detected": {f: {k: v["detected"] for k, v in d.items()} for f, d in doc["detect"].items()},
        "untouched_false_pairs": {f: {k: v["false_pairs"] for k, v in d.items()} for f, d in doc["detect"].items()}}
    with open(os.path.join(a.out, f"compare_calibration_{a.backend}.json"), "w") as fh:
        json.dump(doc, fh, indent=2)
    print(json.dumps(doc, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
