"""Medians as NumPy gives them, bit for bit, of many small samples at once.

Why not np.median / np.nanmedian: the A/B statistics (bench/stats.py) take the median of every round of both sides
several times a comparison, and of every bootstrap replicate; np.median costs some 20 µs of Python around a
few nanoseconds of work, and np.nanmedian of a 2-D array goes through masked arrays (a millisecond for 20
replicates). A comparison ran 1 to 12 ms, paid per task compared, and the A/A simulations that keep the
verdicts honest ran thousands. These give the same numbers: the middle value of the sorted sample, or the
mean of the two middle ones, (lo + hi) / 2 as np.mean of two values computes it; NaN where np.median gives NaN
(tests/bench/test_stats_pinned.py holds the old implementation's outputs to that).
"""
from __future__ import annotations

import math
import warnings

import numpy as np


def median(x: np.ndarray) -> float:
    """np.median of a 1-D float array (nan when it holds a NaN or is empty)."""
    n = len(x)
    if n == 0:
        return math.nan
    s = np.sort(x)
    if math.isnan(s[-1]):                       # np.sort puts NaN last
        return float(s[-1])
    lo, hi = s[(n - 1) // 2], s[n // 2]
    return float(lo) if n % 2 else float((lo + hi) / 2)


class Padded:
    """Samples of unequal sizes as one table, a row each, padded with +inf past each row's end:
    `table` (rows, widest), `lens`, and `valid` (the cells that hold a value). `of`, an elementwise
    function, is applied to every value on the way in."""

    def __init__(self, rows: list[np.ndarray], of=None):
        self.lens = np.fromiter(map(len, rows), dtype=np.intp, count=len(rows))
        width = int(self.lens.max()) if len(rows) else 0
        self.even = bool(len(rows)) and int(self.lens.min()) == width
        if self.even:                                # rounds of as many launches each: no padding
            self.table = np.array(rows, dtype=np.float64).reshape(len(rows), width)
            if of is not None:
                self.table = of(self.table)
            self.valid = np.ones(self.table.shape, dtype=bool)
            return
        self.valid = np.arange(width)[None, :] < self.lens[:, None]
        self.table = np.full((len(rows), width), np.inf)
        if len(rows):
            values = np.concatenate(rows)
            self.table[self.valid] = values if of is None else of(values)

    def medians(self) -> np.ndarray:
        """np.median of each row (every row at least one value)."""
        s = np.sort(self.table, axis=1)          # the padding (+inf) after every value, NaN after the padding
        if self.even:
            w = s.shape[1]
            lo, hi = s[:, (w - 1) // 2], s[:, w // 2]
        else:
            rows = np.arange(len(self.lens))
            lo, hi = s[rows, (self.lens - 1) // 2], s[rows, self.lens // 2]
        out = (lo + hi) / 2
        odd = self.lens % 2 == 1
        out[odd] = lo[odd]
        has_nan = np.isnan(s[:, -1]) if s.shape[1] else np.zeros(len(self.lens), dtype=bool)
        out[has_nan] = np.nan
        return out


def nan_medians(vals: np.ndarray) -> np.ndarray:
    """np.nanmedian(vals, axis=1) of a 2-D array: each row's median of its values that are not NaN
    (NaN, with the same warning, for a row of NaN only)."""
    k = vals.shape[1]
    counts = k - np.count_nonzero(np.isnan(vals), axis=1)
    s = np.sort(vals, axis=1)                    # NaN last; faster than np.partition for many short rows
    if (counts == k).all():
        lo, hi = s[:, (k - 1) // 2], s[:, k // 2]
    else:
        rows, h = np.arange(len(vals)), counts // 2
        lo, hi = s[rows, np.maximum(np.where(counts % 2 == 1, h, h - 1), 0)], s[rows, h]
    out = (lo + hi) / 2                          # np.ma.median's sum of the two (one twice when odd), halved
    empty = counts == 0
    if empty.any():
        for _ in range(int(empty.sum())):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=2)
        out[empty] = np.nan
    return out
