"""How often the counters A/B calls a figure 'changed' when nothing changed (false alarms), and how
small a change it still calls, by the product's own rule (`counters.diff`), on simulated repeats.

    python benchmarks/counters_noise_rule.py [--trials 10000] [--repeats 2,3,5] [--seed 0]

Each trial draws A's and B's repeats from one distribution (no change) and asks `diff` for the
verdict; the shapes: normal, uniform, exponential, Student t(3) (heavy tails), and whole 256-byte
steps (Poisson, and a two-valued counter that is one step up 20% of the time), the H200's DRAM
bytes' step. 'detects' is the share of trials called 'changed' when B's whole distribution is
shifted by 5 or 10 standard deviations (with 3 repeats a side the band is about 7 of them: the
price of few false alarms). Prints one JSON document (no GPU needed).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qdexplorer.counters.diff import K_BY_REPEATS, diff  # noqa: E402
from qdexplorer.counters.record import TaskCounters  # noqa: E402

BASE = 4194304.0


def shapes(rng: np.random.Generator) -> dict:
    return {
        "normal": (lambda n: BASE + 1000 * rng.normal(size=n), "us", 1000.0),
        "uniform": (lambda n: BASE + 1000 * rng.uniform(size=n), "us", 1000 / 12 ** 0.5),
        "exponential": (lambda n: BASE + 1000 * rng.exponential(size=n), "us", 1000.0),
        "student_t3": (lambda n: BASE + 1000 * rng.standard_t(3, size=n), "us", 1000 * 3 ** 0.5),
        "poisson_256B_steps": (lambda n: BASE + 256.0 * rng.poisson(2, size=n), "B", 256 * 2 ** 0.5),
        "two_valued_256B": (lambda n: BASE + 256.0 * rng.binomial(1, 0.2, size=n), "B", 256 * 0.4),
    }


def verdict(a, b, key):
    side = (lambda vals: [TaskCounters("t", "full", figures={key: float(v)}) for v in vals])
    return diff(side(a), side(b))[0].verdict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", default="2,3,5")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    out: dict = {"rule": "noise when |median B - median A| <= K(n) x (range A + range B) + quantum",
                 "K(n)": K_BY_REPEATS,
                 "trials": a.trials, "false_alarm": {}, "detects_5_sd": {}, "detects_10_sd": {}}
    for name, (draw, unit, sd) in shapes(rng).items():
        key = "duration_us" if unit == "us" else "dram_read_bytes"
        for n in (int(x) for x in a.repeats.split(",")):
            fa = sum(verdict(draw(n), draw(n), key) == "changed" for _ in range(a.trials)) / a.trials
            out["false_alarm"].setdefault(name, {})[f"n={n}"] = fa
            m = max(a.trials // 10, 1)
            for k in (5, 10):
                det = sum(verdict(draw(n), draw(n) + k * sd, key) == "changed" for _ in range(m)) / m
                out[f"detects_{k}_sd"].setdefault(name, {})[f"n={n}"] = det
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
