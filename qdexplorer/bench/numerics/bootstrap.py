"""The hierarchical bootstrap behind each side's median whiskers (stats.median_interval), made cheap.

A comparison draws 2 x n_boot replicates per task, and the A/A simulations that keep the verdicts honest
compare thousands of tasks, so the fixed costs counted: a fresh np.random.default_rng per call (18 µs of
seeding), np.nanmedian through masked arrays, and np.percentile's 40 µs of Python around a partition. Each
is replaced by the same computation without its overhead; the draws and the numbers are the very ones
the plain calls give (tests/bench/test_stats_pinned.py pins them; test_numerics.py holds them to NumPy's).
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from .medians import nan_medians

CHUNK = 2_000_000    # bootstrap draws held in memory at once

_local = threading.local()


@functools.lru_cache(maxsize=64)
def _seeded_state(seed: int) -> dict:
    return dict(np.random.default_rng(seed).bit_generator.state)


def seeded(seed) -> np.random.Generator:
    """np.random.default_rng(seed): a generator in the very state that call gives, for an int seed the
    calling thread's one generator reset to it (no reseeding); any other seed (None: fresh entropy) as given."""
    if type(seed) is not int:
        return np.random.default_rng(seed)
    rng = getattr(_local, "rng", None)
    if rng is None:
        rng = _local.rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = _seeded_state(seed)
    return rng


def pooled_medians(rounds: list[np.ndarray], picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Median of the launches of each bootstrap replicate: `picks` (B, R) names the rounds drawn;
    within each drawn round as many launches as it has are drawn with replacement."""
    lens = np.array([len(r) for r in rounds])
    width = int(lens.max())
    table = np.full((len(rounds), width), np.nan)
    for i, r in enumerate(rounds):
        table[i, :len(r)] = r
    flat = table.ravel()
    uneven = int(lens.min()) < width
    n_boot, n_rounds = picks.shape
    step = max(1, CHUNK // max(1, n_rounds * width))
    out = np.empty(n_boot)
    for s in range(0, n_boot, step):
        p = picks[s:s + step]
        n = lens[p]                                                   # (b, R) launches in each drawn round
        pos = (rng.random((len(p), n_rounds, width)) * n[..., None]).astype(np.int64)
        vals = flat[p[..., None] * width + pos]                      # table[p[..., None], pos]
        if uneven:
            vals[np.arange(width)[None, None, :] >= n[..., None]] = np.nan   # draw len(round) launches only
        out[s:s + step] = nan_medians(vals.reshape(len(p), -1))
    return out


def percentile_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """np.percentile(values, [tail, 100 - tail]) of a 1-D float array, tail = (1 - level) / 2 * 100, by the
    steps of NumPy's default ('linear') method: the virtual index (n - 1) q, its floor and the next index
    (both the last past the end), the weight gamma from the floor so clipped, and NumPy's _lerp."""
    n = len(values)
    if n == 0:
        return (float("nan"), float("nan"))
    tail = (1.0 - level) / 2 * 100
    virtual = (n - 1) * np.true_divide([tail, 100 - tail], 100)
    prev = np.floor(virtual)
    nxt = prev + 1
    above, below = virtual >= n - 1, virtual < 0
    prev[above], nxt[above] = -1, -1
    prev[below], nxt[below] = 0, 0
    prev[np.isnan(virtual)], nxt[np.isnan(virtual)] = -1, -1
    gamma = virtual - prev
    prev, nxt = prev.astype(np.intp), nxt.astype(np.intp)
    part = np.partition(values, np.unique(np.concatenate(([0, -1], prev, nxt))))
    a, b = part[prev], part[nxt]
    diff = b - a
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    if np.isnan(part[-1]):
        out[:] = np.nan
    return (float(out[0]), float(out[1]))
