"""The A/B statistics on synthetic runs whose truth is known: block drift, bursts of load, real effects.

Every sample here is drawn from a seeded generator, so each test is deterministic; the seeds are
ranges, not picks.
"""
import math

import numpy as np
import pytest

from qdexplorer.bench.compare import compare_runs
from qdexplorer.bench.stats import MIN_ROUNDS, compare_rounds, drift_sd, noise_floor, rank_interval

from .conftest import make_run

TASK = "k_kernel_0_range_for"


def launch_times(rng, n, median_ms=1.0, noise=0.05):
    """Skewed like real launch times: a lognormal spread and a few large outliers (preemptions)."""
    x = median_ms * np.exp(noise * rng.standard_normal(n))
    spikes = rng.random(n) < 0.03
    x[spikes] *= rng.uniform(2, 5, spikes.sum())
    return x


def drifting(rng, rounds=10, per=4, effect=1.0, sd=0.03):
    """One run: each round's launches moved together by exp(N(0, sd)) — the machine's state."""
    return [launch_times(rng, per) * effect * math.exp(sd * rng.standard_normal()) for _ in range(rounds)]


def bursty(rng, rounds=10, per=4, effect=1.0, load=1.35):
    """One run on a machine where another process comes and goes: half the rounds 35% slower."""
    return [launch_times(rng, per) * effect * (load if rng.random() < 0.5 else 1.0) for _ in range(rounds)]


def verdicts(pairs, **kw):
    out = {}
    for a, b in pairs:
        v = compare_rounds("t", a, b, n_boot=500, **kw).verdict
        out[v] = out.get(v, 0) + 1
    return out


def test_saved_runs_with_block_drift_and_no_change_are_never_flagged():
    """The issue's false alarm: unchanged code, each run's rounds moved ±10% by the machine. Pooling
    every launch as independent called 18 of these 120 task comparisons slower or faster; rounds see
    the drift."""
    flagged = []
    for seed in range(60):
        a = make_run(seed=2 * seed, rounds=10, repeat=40, round_drift=0.10, backend="cuda")
        b = make_run(seed=2 * seed + 1, rounds=10, repeat=40, round_drift=0.10, backend="cuda")
        cmp = compare_runs(a, b, n_boot=500)
        flagged += [(seed, t.task, t.verdict) for t in cmp.tasks + [cmp.total] if t.verdict in ("slower", "faster")]
    assert flagged == []


def test_bursts_of_load_rarely_flag_an_unchanged_task():
    """Half the rounds 35% slower at random: two runs can land 8/10 and 1/10 loaded, which no
    statistic can tell from a change. The issue allows 1 false verdict in 20 A/A pairs; pooling
    launches gave 21 in 100 here."""
    rng = np.random.default_rng(7)
    v = verdicts(((bursty(rng), bursty(rng)) for _ in range(100)), threshold=0.15)
    assert v.get("slower", 0) + v.get("faster", 0) <= 1, v


@pytest.mark.parametrize("effect, verdict", [(1.3, "slower"), (1 / 1.3, "faster")])
def test_a_known_effect_under_block_drift_is_found(effect, verdict):
    rng = np.random.default_rng(11)
    v = verdicts(((drifting(rng), drifting(rng, effect=effect)) for _ in range(100)), threshold=0.15)
    assert v.get(verdict, 0) >= 95 and set(v) <= {verdict, "unsure"}, v  # never `same`, never the other way


def test_a_known_effect_between_saved_runs_is_found(runs):
    a = runs(seed=1, round_drift=0.03)
    b = runs(seed=2, round_drift=0.03, scale={TASK: 1.3})
    cmp = compare_runs(a, b)
    hot, steady = cmp.task(TASK), cmp.task("k_kernel_1_serial")
    assert hot.verdict == "slower" and 1.15 < hot.ci[0] < 1.3 < hot.ci[1] and hot.rounds_a == hot.rounds_b == 10
    assert steady.verdict == "same" and not cmp.paired


def test_too_few_rounds_is_unsure_and_says_how_many_more():
    rng = np.random.default_rng(3)
    one = [launch_times(rng, 40)]
    doubled = [launch_times(rng, 40) * 2.0]
    s = compare_rounds("t", one, doubled)
    assert s.verdict == "unsure" and s.rounds_needed == MIN_ROUNDS - 1 and "too few rounds" in s.reason
    assert 1.8 < s.ratio < 2.2 and math.isnan(s.ci[0])  # the launches agree; one round a side is no interval
    two = compare_rounds("t", drifting(rng, rounds=2), drifting(rng, rounds=2, effect=2.0))
    assert two.verdict == "unsure" and two.rounds_needed == MIN_ROUNDS - 2
    small = compare_rounds("t", one, [launch_times(rng, 40) * 1.01])
    # one round a side cannot show the drift between rounds: no evidence of `same` either
    assert small.verdict == "unsure" and "too few rounds" in small.reason and small.rounds_needed == MIN_ROUNDS - 1


def test_an_interval_that_reaches_the_threshold_is_unsure_until_enough_rounds():
    """1.15x against a 5% threshold, noisy launches: 4 rounds leave the interval reaching into the
    band, and the verdict asks for a few more rounds; 30 rounds of the same machine decide it."""
    def side(rng, rounds, effect):
        return [launch_times(rng, 4, noise=0.15) * effect * math.exp(0.03 * rng.standard_normal())
                for _ in range(rounds)]
    rng = np.random.default_rng(1)
    few = compare_rounds("t", side(rng, 4, 1.0), side(rng, 4, 1.15), threshold=0.05)
    assert few.verdict == "unsure" and "reaches into the ±5% band" in few.reason
    # the interval must clear the noise floor (8%) too, not only the threshold: more rounds than that
    assert few.ci[0] < 1.05 < few.ratio and 1 <= few.rounds_needed <= 20
    many = compare_rounds("t", side(rng, 30, 1.0), side(rng, 30, 1.15), threshold=0.05)
    assert many.verdict == "slower" and many.ci[0] > 1.05
    rng = np.random.default_rng(1)
    tiny = compare_rounds("t", side(rng, 4, 1.0), side(rng, 4, 1.07), threshold=0.05)
    assert (tiny.verdict, tiny.rounds_needed) == ("unsure", None) and 1.05 < tiny.ratio < 1.08
    assert "more rounds will not shrink it" in tiny.reason  # a change small against this noise


def test_interleaved_rounds_cancel_the_drift_both_sides_share():
    """A B A B: the same ±15% offset hits round i of both sides. Paired, a 1.1x change is clear;
    the same launches taken as two separate runs are not (the drift swamps it)."""
    rng = np.random.default_rng(5)
    off = np.exp(0.15 * rng.standard_normal(12))
    a = [launch_times(rng, 5, noise=0.02) * o for o in off]
    b = [launch_times(rng, 5, noise=0.02) * o * 1.10 for o in off]
    paired = compare_rounds("t", a, b, threshold=0.05, paired=True)
    apart = compare_rounds("t", a, b, threshold=0.05, paired=False)
    assert paired.verdict == "slower" and paired.paired and paired.noise_floor < 0.05
    assert apart.verdict != "slower" and apart.noise_floor > 0.2
    with pytest.raises(ValueError, match="one to one"):
        compare_rounds("t", a, b[:-1], paired=True)


def test_interleaved_runs_are_paired_by_their_token(runs):
    off = np.exp(0.15 * np.random.default_rng(9).standard_normal(10))
    a = runs("A", seed=1, offsets=off, pair="p1")
    b = runs("B", seed=2, offsets=off, scale={TASK: 1.1}, pair="p1")
    cmp = compare_runs(a, b, threshold=0.05)
    assert cmp.paired and cmp.task(TASK).verdict == "slower" and cmp.task("k_kernel_1_serial").verdict == "same"
    b.context.pair = "another comparison"
    assert not compare_runs(a, b, threshold=0.05).paired


def test_the_interval_includes_the_drift_between_rounds():
    rng = np.random.default_rng(13)
    a, b = drifting(rng, sd=0.15), drifting(rng, sd=0.15)
    ri = rank_interval(a, b)
    # the same launches as 40 one-launch rounds each: launch noise only, a narrower interval
    flat = rank_interval([[x] for x in np.concatenate(a)], [[x] for x in np.concatenate(b)])
    assert ri.hi - ri.lo > 1.5 * (flat.hi - flat.lo)
    assert rank_interval(a, b) == ri   # nothing random: the same runs, the same interval


def test_noise_floor_measures_the_drift_not_the_launch_noise():
    rng = np.random.default_rng(17)
    quiet = [launch_times(rng, 8, noise=0.10) for _ in range(30)]         # noisy launches, no drift
    drifty = [launch_times(rng, 8, noise=0.02) * math.exp(0.10 * rng.standard_normal()) for _ in range(30)]
    assert drift_sd(quiet) < 0.03
    assert 0.06 < drift_sd(drifty) < 0.14
    assert math.isnan(noise_floor([quiet[0]], quiet[1:]))  # one round cannot show drift
    assert noise_floor(drifty, drifty[::-1]) > noise_floor(quiet, quiet[::-1])


def test_a_change_inside_the_noise_floor_is_unsure_and_more_rounds_will_not_help():
    rng = np.random.default_rng(19)
    a = [launch_times(rng, 6, noise=0.01) * o for o in np.exp(0.3 * rng.standard_normal(30))]
    b = [launch_times(rng, 6, noise=0.01) * o * 1.4 for o in np.exp(0.3 * rng.standard_normal(30))]
    s = compare_rounds("t", a, b, threshold=0.05)
    assert s.verdict == "unsure" and "noise floor" in s.reason and s.rounds_needed is None
    assert s.noise_floor > s.ratio - 1


def test_identical_and_constant_samples_are_the_same():
    rng = np.random.default_rng(2)
    a = drifting(rng)
    s = compare_rounds("t", a, [x.copy() for x in a], paired=True)
    assert (s.verdict, s.ratio, s.p) == ("same", 1.0, 1.0)
    assert s.ci[0] <= 1.0 <= s.ci[1]
    const = compare_rounds("t", [[0.5] * 5] * 4, [[0.5] * 5] * 4)
    assert const.verdict == "same" and const.p == 1.0 and const.ci == (1.0, 1.0)


def test_a_difference_below_timer_resolution_is_never_a_verdict():
    rng = np.random.default_rng(3)
    a = [0.0010 + rng.normal(0, 1e-6, 20) for _ in range(5)]
    b = [x + 0.0002 for x in a]  # 20% slower, but 0.2 µs on a timer that resolves 0.5 µs
    assert compare_rounds("t", a, b, paired=True).verdict == "slower"
    s = compare_rounds("t", a, b, resolution_ms=0.0005, paired=True)
    assert s.verdict == "unsure" and "timer resolves" in s.reason and s.rounds_needed is None


def test_one_launch_a_side_gives_no_interval_rather_than_a_point():
    s = compare_rounds("t", [[1.0]], [[2.0]])
    assert math.isnan(s.ci[0]) and math.isnan(s.ci[1]) and s.verdict == "unsure"
    assert s.to_dict()["ci"] == [None, None]
    with pytest.raises(ValueError, match="at least one launch"):
        compare_rounds("t", [], [[1.0]])


def test_small_drift_is_below_the_threshold():
    rng = np.random.default_rng(5)
    a = [launch_times(rng, 50) for _ in range(20)]
    b = [launch_times(rng, 50) * 1.03 for _ in range(20)]
    drift = compare_rounds("t", a, b)
    assert drift.verdict == "same" and drift.p < 1e-2 and "lies within ±5%" in drift.reason
    assert compare_rounds("t", a, b, threshold=0.01).verdict == "slower"


def test_default_threshold_follows_the_expected_drift():
    from qdexplorer.bench.stats import default_threshold
    assert default_threshold({"cuda"}, interleaved=True) < default_threshold({"cuda"}, interleaved=False)
    assert default_threshold({"cuda"}, False) < default_threshold({"cpu"}, False)
    assert default_threshold({"cpu", "cuda"}, False) == default_threshold({"cpu"}, False)


def test_old_runs_without_rounds_read_unsure_with_a_warning(runs):
    a, b = runs(seed=1, rounds=None), runs(seed=2, rounds=None, scale={TASK: 1.6})
    assert not a.rounds_known and list(a.round_samples(TASK)) == [0]
    cmp = compare_runs(a, b)
    hot = cmp.task(TASK)
    assert hot.verdict == "unsure" and hot.rounds_needed == MIN_ROUNDS - 1
    assert any("before runs were recorded in rounds" in w for w in cmp.warnings)
    assert "unsure: too few rounds" in cmp.table() and "more rounds a side would settle it" in cmp.table()


def test_launches_shorter_than_a_tick_count_as_half_a_tick():
    """Quadrants' CPU profiler ticks in microseconds: a 0.3 µs task reads 0 or 1 µs. A zero must not
    become log(0) (the noise floor overflowed) or a division by zero."""
    a = [np.array([0.00095367, 0.0, 0.0]), np.array([0.00095367, 0.0, 0.00095367]), np.array([0.0, 0.0, 0.0])]
    b = [np.array([0.0, 0.0, 0.00095367]), np.array([0.0, 0.0, 0.0]), np.array([0.00095367, 0.0, 0.0])]
    s = compare_rounds("t", a, b, resolution_ms=0.001, paired=True)
    assert s.verdict in ("same", "unsure") and "timer resolves" in s.reason and math.isfinite(s.noise_floor)
