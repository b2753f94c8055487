"""bench/stats.py's outputs pinned bit for bit: intervals, p-values, noise floors, verdicts and the
bootstrap's whiskers of varied samples (small and large, ties, bimodal, heavy tails, zeros, NaN, uneven
and empty rounds, paired and not, the exact rank tables and their normal approximation).

Why: the statistics were made faster (bench/numerics/: vectorised medians, no masked arrays), and a faster one must give
the very numbers the slower one gave, or saved comparisons and docs/benchmarking.md's coverage table
would silently change. The pins in stats_pins.json were written by the implementation before that
(commit cee2292); `python tests/bench/test_stats_pinned.py --write` rewrites them, which only a deliberate
change of method may do.
"""
import hashlib
import json
import os
import sys
import warnings

import numpy as np
import pytest

from qdexplorer.bench import stats

PINS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats_pins.json")


def _normal(rng, rounds, per, drift=0.05):
    return [np.exp(drift * rng.standard_normal()) * np.maximum(1.0 + 0.05 * rng.standard_normal(per), 0.01)
            for _ in range(rounds)]


def _bimodal(rng, rounds, per):
    return [np.where(rng.random(per) < 0.5, 0.04, 5.0) * np.exp(0.02 * rng.standard_normal(per))
            for _ in range(rounds)]


def _compiles(rng, rounds, per):
    out = []
    for _ in range(rounds):
        x = np.exp(0.05 * rng.standard_normal(per))
        x[0] *= 50.0
        out.append(x)
    return out


def _heavy(rng, rounds, per):
    return [1.0 + 0.2 * np.abs(rng.standard_cauchy(per)) for _ in range(rounds)]


def _ties(rng, rounds, per):
    return [rng.integers(1, 4, per).astype(float) for _ in range(rounds)]


def samples():
    """(name, a, b, paired) of every sample pinned; each drawn from its own seed."""
    def rng(i):
        return np.random.default_rng(1000 + i)
    out = []
    shapes = (("normal", _normal), ("bimodal", _bimodal), ("compiles", _compiles), ("heavy", _heavy),
              ("ties", _ties))
    sizes = ((3, 5), (4, 5), (4, 1), (5, 3), (6, 5), (10, 5), (20, 1), (12, 40), (40, 3), (45, 2))
    i = 0
    for name, draw in shapes:
        for rounds, per in sizes:
            g = rng(i)
            a, b = draw(g, rounds, per), draw(g, rounds, per)
            out.append((f"{name} {rounds}x{per}", a, b, False))
            out.append((f"{name} {rounds}x{per} paired", a, b, True))
            out.append((f"{name} {rounds}x{per} x1.3", a, [r * 1.3 for r in b], rounds % 2 == 0))
            i += 1
    g = rng(i)
    same = _normal(g, 6, 4)
    uneven_a = [g.random(n) + 0.5 for n in (1, 7, 3, 12, 2)]
    uneven_b = [g.random(n) + 0.6 for n in (4, 1, 9, 2, 6, 3)]
    out += [
        ("identical sides", same, [r.copy() for r in same], True),
        ("identical sides unpaired", same, [r.copy() for r in same], False),
        ("all equal", [[1.0] * 4] * 6, [[1.0] * 4] * 6, False),
        ("all equal paired", [[2.0] * 3] * 7, [[2.0] * 3] * 7, True),
        ("uneven rounds", uneven_a, uneven_b, False),
        ("empty rounds dropped", [[], [1.0, 1.1], [], [0.9, 1.2, 1.0], [1.05], [1.0, 1.0]],
         [[1.2, 1.3], [], [1.25], [1.1, 1.4], [1.3, 1.2, 1.25]], False),
        ("zeros in A", [[0.0, 0.0, 0.0]] * 5, [[0.1, 0.0, 0.2]] * 5, False),
        ("zeros both", [[0.0, 0.0]] * 4, [[0.0, 0.0]] * 4, True),
        ("some zeros", [[0.0, 1e-4, 2e-4]] * 6, [[1e-4, 1e-4, 0.0]] * 6, True),
        ("one launch each", [[1.0]], [[2.0]], False),
        ("one launch a side, many rounds", [[5.0 + 0.01 * k] for k in range(20)],
         [[0.04 + 0.0001 * k] for k in range(20)], True),
        ("a NaN launch", [[1.0, float("nan"), 1.1], [1.0, 1.2], [0.9, 1.0], [1.1, 1.0]],
         [[1.3, 1.2], [1.25, 1.3], [1.2, float("nan")], [1.4, 1.3]], False),
        ("an infinite launch", [[1.0, float("inf"), 1.1], [1.0, 1.2], [0.9, 1.0], [1.1, 1.0], [1.0, 1.05]],
         [[1.3, 1.2], [1.25, 1.3], [1.2, 1.1], [1.4, 1.3], [1.2, 1.2]], False),
        ("wide range", [g.random(6) * 10.0 ** g.integers(-6, 3) for _ in range(8)],
         [g.random(6) * 10.0 ** g.integers(-6, 3) for _ in range(8)], True),
    ]
    return out


def _call(f, *args, **kw):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*args, **kw)
    except Exception as e:   # the same error is as much a result as the same number
        return {"error": type(e).__name__, "message": str(e)}


def _ri(x):
    return x if isinstance(x, dict) else [x.lo, x.hi, x.coverage, x.p, x.method]


def outputs(a, b, paired) -> dict:
    """Everything bench/stats.py gives of one sample, as JSON-able values."""
    out = {}
    for alpha in (0.05, 0.1):
        out[f"rank_interval {alpha}"] = _ri(_call(stats.rank_interval, a, b, paired, alpha))
    out["noise_floor"] = _call(stats.noise_floor, a, b, paired)
    out["drift_sd a"] = _call(stats.drift_sd, a)
    out["paired_drift_sd"] = _call(stats.paired_drift_sd, a, b)
    for n_boot, seed in ((20, stats.SEED), (2000, 7)):
        out[f"median_interval {n_boot} {seed}"] = list(_call(stats.median_interval, a, n_boot, 0.95, seed))
    for kw in ({}, {"n_boot": 20, "threshold": 0.02}, {"resolution_ms": 0.0005, "alpha": 0.1, "threshold": 0.15},
               {"resolution_ms": 0.05, "n_boot": 100, "seed": 3}):
        s = _call(stats.compare_rounds, "t", a, b, paired=paired, **kw)
        out[f"compare_rounds {sorted(kw.items())}"] = s if isinstance(s, dict) else s.to_dict()
    return out


def rank_tables() -> dict:
    """The exact null distributions of many sizes the rank interval counts exactly, each as the SHA-256 of its
    float64 bytes (the tables are long; a hash pins every bit of them as well)."""
    def digest(cdf):
        return hashlib.sha256(np.ascontiguousarray(cdf, dtype=np.float64).tobytes()).hexdigest()
    mw = {f"{n} {m}": digest(stats._mann_whitney_cdf(n, m)) for n in range(1, 31) for m in range(n, 31)
          if n * m <= stats.EXACT_PAIRS and (n <= 8 or m in (n, n + 1, 30))}
    sr = {str(n): digest(stats._signed_rank_cdf(n)) for n in range(1, 43)}
    return {"mann_whitney": mw, "signed_rank": sr}


def all_outputs() -> dict:
    return {"samples": {name: outputs(a, b, paired) for name, a, b, paired in samples()},
            "tables": rank_tables()}


def _dump(x) -> str:
    return json.dumps(x, sort_keys=True)


@pytest.fixture(scope="module")
def pins():
    with open(PINS) as f:
        return json.load(f)


@pytest.mark.parametrize("name, a, b, paired", samples(), ids=[s[0] for s in samples()])
def test_outputs_are_the_pinned_ones(pins, name, a, b, paired):
    got = json.loads(_dump(outputs(a, b, paired)))
    want = pins["samples"][name]
    for key in want:
        assert _dump(got[key]) == _dump(want[key]), key
    assert set(got) == set(want)


def test_rank_tables_are_the_pinned_ones(pins):
    got = json.loads(_dump(rank_tables()))
    for kind in ("mann_whitney", "signed_rank"):
        assert set(got[kind]) == set(pins["tables"][kind])
        for size, cdf in pins["tables"][kind].items():
            assert _dump(got[kind][size]) == _dump(cdf), (kind, size)


def test_every_sample_is_pinned(pins):
    assert set(pins["samples"]) == {s[0] for s in samples()} and len(pins["samples"]) > 150


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {sys.argv[0]} --write   (rewrites {PINS})")
    with open(PINS, "w") as f:
        f.write(json.dumps(all_outputs(), sort_keys=True, indent=0))
