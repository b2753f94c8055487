"""Does the A/B interval cover the true ratio as often as it says, whatever the launch times look like?

A simulation: each side is `rounds` rounds of `per` launches; each round's launches share a drift
factor exp(N(0, 0.05)) (the machine's state), and B's launches are A's process times the true ratio.
Launch times come from one of these shapes:

- normal:        1 ms x (1 + 0.05 N(0, 1))
- bimodal:       0.04 ms or 5 ms, half and half (Quadrants' `to_numpy`: a cache that is sometimes cold)
- first compiles: the first launch of each round 50x the others (a launch that compiles)
- heavy-tailed:  1 ms x (1 + 0.2 |Cauchy|) (preemptions of any length)

For each shape and sample size it counts how often the 95% interval of `bench/stats.rank_interval` holds
the true ratio (coverage), and how often an A/A pair (true ratio 1) gets `faster` or `slower` from
`bench/stats.compare_rounds`, the code every comparison uses. `--old` adds the percentile bootstrap
that stood before (from git, commit 9037445) for the same samples.

    python benchmarks/verdict_coverage.py [--trials 2000] [--old] [--markdown]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from qdexplorer.bench.stats import compare_rounds, rank_interval  # noqa: E402

SHAPES = ("normal", "bimodal", "first compiles", "heavy-tailed")
# (rounds a side, launches a round, paired): the smallest samples that can give a verdict, then common ones
SAMPLES = ((4, 5, False), (4, 1, False), (5, 1, True), (6, 5, True), (6, 1, True), (10, 5, False), (10, 5, True))


def launches(rng: np.random.Generator, shape: str, n: int) -> np.ndarray:
    if shape == "normal":
        return np.maximum(1.0 + 0.05 * rng.standard_normal(n), 0.01)
    if shape == "bimodal":
        return np.where(rng.random(n) < 0.5, 0.04, 5.0) * np.exp(0.02 * rng.standard_normal(n))
    if shape == "first compiles":
        x = np.exp(0.05 * rng.standard_normal(n))
        x[0] *= 50.0
        return x
    if shape == "heavy-tailed":
        return 1.0 + 0.2 * np.abs(rng.standard_cauchy(n))
    raise ValueError(shape)


def pair_of_sides(rng, shape, rounds, per, paired, ratio=1.0, drift=0.05):
    """Two sides' rounds; paired: round i of both sides shares its drift (measured side by side)."""
    da = np.exp(drift * rng.standard_normal(rounds))
    db = da if paired else np.exp(drift * rng.standard_normal(rounds))
    a = [launches(rng, shape, per) * da[i] for i in range(rounds)]
    b = [launches(rng, shape, per) * db[i] * ratio for i in range(rounds)]
    return a, b


def coverage(shape, rounds, per, paired, ratio, trials, seed=0, interval=None) -> float:
    """Share of `trials` whose interval holds the true ratio; `interval(a, b, paired)` -> (lo, hi) on the
    ratio scale (default: the rank interval)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(trials):
        a, b = pair_of_sides(rng, shape, rounds, per, paired, ratio)
        if interval is None:
            ri = rank_interval(a, b, paired)
            lo, hi = math.exp(ri.lo), math.exp(ri.hi)
        else:
            lo, hi = interval(a, b, paired)
        hits += lo <= ratio <= hi
    return hits / trials


def false_verdicts(shape, rounds, per, paired, trials, seed=1, compare=compare_rounds) -> int:
    """A/A pairs called `faster` or `slower` by compare_rounds (threshold 5%, the strictest default)."""
    rng = np.random.default_rng(seed)
    bad = 0
    for _ in range(trials):
        a, b = pair_of_sides(rng, shape, rounds, per, paired)
        bad += compare("t", a, b, threshold=0.05, paired=paired, n_boot=20).verdict in ("faster", "slower")
    return bad


def old_interval():
    """The percentile bootstrap with the few-rounds widening that stood before (from git, 9037445)."""
    import importlib.util
    import subprocess
    import tempfile
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    src = subprocess.run(["git", "-C", root, "show", "9037445:qdexplorer/bench/stats.py"], capture_output=True,
                         text=True, check=True).stdout
    path = os.path.join(tempfile.mkdtemp(), "old_stats.py")
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location("old_stats", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["old_stats"] = mod
    spec.loader.exec_module(mod)

    def interval(a, b, paired):
        s = mod.compare_rounds("t", a, b, paired=paired, n_boot=400)
        return s.ci if not math.isnan(s.ci[0]) else (0.0, math.inf)
    return interval, mod.compare_rounds


def table(trials: int, old: bool) -> list[dict]:
    rows = []
    before, old_compare = old_interval() if old else (None, None)
    for rounds, per, paired in SAMPLES:
        for shape in SHAPES:
            first = rank_interval(*pair_of_sides(np.random.default_rng(0), shape, rounds, per, paired), paired)
            row = {"shape": shape, "rounds": rounds, "per_round": per, "paired": paired, "method": first.method,
                   "exact_coverage": first.coverage,
                   "coverage_ratio_1": coverage(shape, rounds, per, paired, 1.0, trials),
                   "coverage_ratio_1.3": coverage(shape, rounds, per, paired, 1.3, trials, seed=2),
                   "false_verdicts_aa": false_verdicts(shape, rounds, per, paired, trials), "trials": trials}
            if before is not None and rounds <= 5:
                row["old_coverage_3_rounds"] = coverage(shape, 3, per, paired, 1.0, trials, seed=3,
                                                        interval=before)
                row["old_false_verdicts_aa_3_rounds"] = false_verdicts(shape, 3, per, paired, trials,
                                                                        compare=old_compare)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)   # progress: a long run cut short still tells
    return rows


def markdown(rows: list[dict]) -> str:
    old = any("old_coverage_3_rounds" in r for r in rows)
    head = "| launch times | rounds a side × launches | paired | interval (exact coverage) | coverage, ratio 1 " \
           "| coverage, ratio 1.3 | A/A faster/slower |" + (" before, 3 rounds: coverage, A/A faster/slower |" if old else "")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        extra = (f" {r['old_coverage_3_rounds']:.1%}, {r['old_false_verdicts_aa_3_rounds']} |"
                 if "old_coverage_3_rounds" in r else (" |" if old else ""))
        lines.append(f"| {r['shape']} | {r['rounds']} × {r['per_round']} | {'yes' if r['paired'] else 'no'} | "
                     f"{r['method']} ({r['exact_coverage']:.1%}) | {r['coverage_ratio_1']:.1%} | {r['coverage_ratio_1.3']:.1%} | "
                     f"{r['false_verdicts_aa']} of {r['trials']} |{extra}")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=2000)
    p.add_argument("--old", action="store_true", help="also the old bootstrap's coverage at 3 rounds")
    p.add_argument("--markdown", action="store_true", help="a table for docs/benchmarking.md instead of JSON")
    a = p.parse_args()
    rows = table(a.trials, a.old)
    print(markdown(rows) if a.markdown else json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
