"""bench/numerics/ (medians.py, bootstrap.py) stand in for np.median, np.nanmedian, np.percentile and
np.random.default_rng in the A/B statistics, for speed: held here to give what those give, bit for bit,
on samples of every size from 1 up, with ties, NaN, infinities and zeros (and so to say so if NumPy
ever changes how it computes them)."""
import warnings

import numpy as np
import pytest

from qdexplorer.bench.numerics.bootstrap import percentile_ci, seeded
from qdexplorer.bench.numerics.medians import Padded, median, nan_medians


def _samples(rng):
    for n in list(range(1, 24)) + [99, 100, 2000, 2001]:
        yield rng.random(n)
        yield rng.integers(0, 3, n).astype(float)                     # ties
        yield np.exp(3 * rng.standard_normal(n))                      # wide
        yield np.where(rng.random(n) < 0.5, 0.04, 5.0)                # two values only
        x = rng.random(n)
        x[rng.random(n) < 0.2] = np.inf
        yield x
        x = rng.random(n)
        x[rng.random(n) < 0.1] = np.nan
        yield x
    yield np.array([-np.inf, np.inf])
    yield np.zeros(4)


def _same(x, y):
    return np.array_equal(np.asarray(x, dtype=float), np.asarray(y, dtype=float), equal_nan=True)


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_median_is_numpys(quiet):
    for x in _samples(np.random.default_rng(0)):
        assert _same(median(x), np.median(x)), x


def test_padded_medians_are_numpys_row_by_row(quiet):
    rng = np.random.default_rng(1)
    rows = list(_samples(rng))
    for k in range(0, len(rows), 7):
        group = rows[k:k + 7]
        assert _same(Padded(group).medians(), [np.median(r) for r in group])


def test_nan_medians_are_numpys_nanmedian(quiet):
    rng = np.random.default_rng(2)
    for shape in ((20, 1), (20, 2), (20, 5), (7, 50), (2000, 12), (3, 401)):
        x = rng.random(shape)
        assert _same(nan_medians(x), np.nanmedian(x, axis=1))
        x[rng.random(shape) < 0.3] = np.nan
        x[0] = np.nan                                                   # a row of NaN only
        x[rng.random(shape) < 0.05] = np.inf
        assert _same(nan_medians(x), np.nanmedian(x, axis=1))


def test_all_nan_rows_warn_as_numpy_does():
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        out = nan_medians(np.array([[np.nan, np.nan], [1.0, np.nan]]))
    assert np.isnan(out[0]) and out[1] == 1.0


def test_percentile_ci_is_numpys_percentile(quiet):
    for level in (0.95, 0.9, 0.5, 0.99, 0.999):
        tail = (1 - level) / 2 * 100
        for x in _samples(np.random.default_rng(3)):
            assert _same(percentile_ci(x, level), np.percentile(x, [tail, 100 - tail])), (level, x)


def test_seeded_draws_as_default_rng_does():
    for seed in (0, 20240601, 20240602, 7):
        ours, theirs = seeded(seed), np.random.default_rng(seed)
        assert _same(ours.integers(0, 5, (20, 5)), theirs.integers(0, 5, (20, 5)))
        assert _same(ours.random(1000), theirs.random(1000))
        again = seeded(seed)                                            # a reset, not the next draws
        assert _same(again.random(10), np.random.default_rng(seed).random(10))
    assert not _same(seeded(None).random(4), seeded(None).random(4))   # None: fresh entropy, as default_rng
