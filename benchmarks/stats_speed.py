"""CPU per call of the A/B statistics (bench/stats.py) that every comparison pays once per task: a window
comparing 15 tasks, a sweep of many variants, the A/A simulations of tests/bench/test_no_false_verdict.py.

Process time (time.process_time), the best of 5 repeats of a loop, in microseconds a call.

    python benchmarks/stats_speed.py [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from qdexplorer.bench import stats  # noqa: E402


def _sides(rounds: int, per: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    def side():
        return [np.exp(0.05 * rng.standard_normal()) * (1.0 + 0.2 * np.abs(rng.standard_cauchy(per)))
                for _ in range(rounds)]
    return side(), side()


def _per_call_us(f, loops: int) -> float:
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        for _ in range(loops):
            f()
        best = min(best, time.process_time() - t)
    return best / loops * 1e6


def timings() -> dict:
    out = {}
    for rounds, per, paired in ((5, 1, True), (4, 5, False), (10, 5, False), (10, 5, True), (40, 10, False)):
        a, b = _sides(rounds, per)
        key = f"{rounds}x{per}{' paired' if paired else ''}"
        loops = 20 if rounds < 40 else 5
        out[f"compare_rounds n_boot=20 {key}"] = _per_call_us(
            lambda: stats.compare_rounds("t", a, b, paired=paired, n_boot=20), loops * 10)
        out[f"compare_rounds n_boot=2000 {key}"] = _per_call_us(
            lambda: stats.compare_rounds("t", a, b, paired=paired), loops)
        out[f"rank_interval {key}"] = _per_call_us(lambda: stats.rank_interval(a, b, paired), loops * 10)
        out[f"noise_floor {key}"] = _per_call_us(lambda: stats.noise_floor(a, b, paired), loops * 10)
        out[f"median_interval n_boot=2000 {key}"] = _per_call_us(lambda: stats.median_interval(a), loops)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true")
    t = timings()
    if p.parse_args().json:
        print(json.dumps(t, indent=1))
    else:
        for k, v in t.items():
            print(f"{v:10.1f} µs  {k}")


if __name__ == "__main__":
    main()
