"""The A/B statistics on distributions whose truth is known."""
import numpy as np
import pytest

from qdexplorer.bench.stats import bootstrap_ratio_ci, compare_samples


def launch_times(rng, n, median_ms=1.0):
    """Skewed like real launch times: a floor, lognormal spread, and a few large outliers."""
    x = median_ms * (0.9 + 0.1 * rng.lognormal(0.0, 0.5, n))
    spikes = rng.random(n) < 0.03
    x[spikes] *= rng.uniform(2, 5, spikes.sum())
    return x


def test_a_10_percent_shift_is_found_both_ways():
    rng = np.random.default_rng(1)
    a = launch_times(rng, 300)
    slower = compare_samples("t", a, launch_times(rng, 300) * 1.10)
    assert slower.verdict == "slower", slower
    assert 1.0 < slower.ci[0] < 1.10 < slower.ci[1] < 1.2
    assert slower.p < 1e-6 and abs(slower.ratio - 1.10) < 0.03
    faster = compare_samples("t", a, launch_times(rng, 300) / 1.10)
    assert faster.verdict == "faster" and faster.ci[1] < 1.0


def test_identical_samples_are_the_same():
    a = launch_times(np.random.default_rng(2), 100)
    s = compare_samples("t", a, a.copy())
    assert (s.verdict, s.ratio, s.p) == ("same", 1.0, 1.0)
    assert s.ci[0] <= 1.0 <= s.ci[1]
    const = compare_samples("t", [0.5] * 20, [0.5] * 20)
    assert const.verdict == "same" and const.p == 1.0


def test_same_distribution_rarely_flagged():
    flagged = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        s = compare_samples("t", launch_times(rng, 60), launch_times(rng, 60), n_boot=500)
        flagged += s.verdict != "same"
    assert flagged <= 10  # alpha is 5%; the CI requirement makes it stricter still


def test_below_timer_resolution_counts_as_same():
    rng = np.random.default_rng(3)
    a = 0.0010 + rng.normal(0, 1e-6, 200)
    b = a + 0.0002  # 20% slower, but 0.2 µs on a timer that resolves 0.5 µs
    assert compare_samples("t", a, b).verdict == "slower"
    s = compare_samples("t", a, b, resolution_ms=0.0005)
    assert s.verdict == "same" and "resolution" in s.reason


def test_too_few_launches_and_empty_sides():
    s = compare_samples("t", [1.0, 1.0], [2.0, 2.0])
    assert s.verdict == "same" and "too few" in s.reason
    with pytest.raises(ValueError, match="at least one launch"):
        compare_samples("t", [], [1.0])


def test_bootstrap_interval_is_deterministic_and_brackets_the_ratio():
    rng = np.random.default_rng(4)
    a, b = launch_times(rng, 80), launch_times(rng, 80) * 2
    assert bootstrap_ratio_ci(a, b) == bootstrap_ratio_ci(a, b)
    lo, hi = bootstrap_ratio_ci(a, b)
    assert lo < np.median(b) / np.median(a) < hi and 1.6 < lo and hi < 2.4


def test_small_significant_drift_is_below_the_threshold():
    rng = np.random.default_rng(5)
    a, b = launch_times(rng, 2000), launch_times(rng, 2000) * 1.03
    drift = compare_samples("t", a, b)
    assert drift.verdict == "same" and drift.p < 1e-3 and "threshold" in drift.reason
    assert compare_samples("t", a, b, threshold=0.01).verdict == "slower"


def test_default_threshold_follows_the_expected_drift():
    from qdexplorer.bench.stats import default_threshold
    assert default_threshold({"cuda"}, interleaved=True) < default_threshold({"cuda"}, interleaved=False)
    assert default_threshold({"cuda"}, False) < default_threshold({"cpu"}, False)
    assert default_threshold({"cpu", "cuda"}, False) == default_threshold({"cpu"}, False)
