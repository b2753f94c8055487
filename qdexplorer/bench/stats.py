"""Is B really faster or slower than A? Rounds, a rank interval of their medians, and a noise floor.

A run is recorded in *rounds*: blocks of launches spread over its duration. Launches within a
round share the machine's state of that moment (load, clocks, frequency scaling), so they are not
independent of each other, and the drift *between* rounds is the noise a comparison must see
past. Treating every launch as independent (one big sample per side) made two saved runs of
unchanged code come out 1.19× `slower` with p = 0.001 on a loaded 2-core machine.

Per task, with each side given as its rounds:

- the summary is the **median** (launch times are skewed: a floor and a tail), the effect the
  **ratio** of the medians of all launches, B/A: the very medians printed beside it, paired or not;
- its 1 - alpha (95%) interval comes from a **rank test on the rounds' medians**, inverted
  (`rank_interval`): each round's median launch time is one unit of evidence (a round's launches
  share its machine state, so they are not independent; a cold first launch or cold cache in a round
  does not move its median much), and the interval of the log ratio is the Hodges-Lehmann one of
  the Mann-Whitney test (separate runs) or, for 6 or more interleaved pairs (the `pair` of their
  contexts), of Wilcoxon's signed-rank test on the pairs' log ratios (the drift a pair shared
  cancels). Its coverage is exact whatever the distribution of the launch times (normal, bimodal,
  heavy-tailed): it assumes only that rounds (or pairs) are independent of each other. The p-value
  is that test's. A percentile bootstrap stood here before: with 3 rounds a side its coverage was
  far below 95% (one bimodal task was called 143x faster, docs/benchmarking.md has the table);
- the **noise floor**: how far one round's B/A moves from another's with nothing changed, i.e.
  the spread of the rounds' medians (on a log scale, from their mean absolute deviation) with the launches' own
  sampling noise taken out (a one-way variance-components estimate), times `NOISE_Z`. Between saved runs the
  drift between rounds stands in for the drift between runs, which one run cannot see;

A bootstrap or t interval on the rounds was tried and left out: resampling 3 rounds undercovers
badly, and a t interval assumes normal rounds, which a bimodal task is not.

The verdict is an equivalence test and a difference test on the same interval, in `verdict_of`,
the one place every caller (CLI, window, sweeps, the Quadrants bridge, exports) gets it from:

- `same` only when the whole interval lies inside ±`threshold` (a change of that size is ruled
  out), never from the point estimate alone: a run compared with itself once said `same` with an
  interval of [0.46, 2.28];
- `slower` / `faster` only when the whole interval *and* the ratio lie beyond the threshold and
  beyond the noise floor, with at least `MIN_ROUNDS` (4) rounds a side, the fewest at which a rank
  interval reaches 95% at all (with 3 a side the most extreme order has probability 1/10), and
  rounds of more than one launch (with one launch a round, as a task a Quadrants program launches
  once, its own spread cannot be told from the drift between rounds);
- otherwise `unsure`, with the reason, and in `rounds_needed` about how many more rounds per side
  would likely settle it either way (the interval narrows as 1/sqrt(rounds) about the same ratio),
  or None where more rounds would not help (a change inside the noise floor, or one sitting on
  the threshold).

`default_threshold` picks the threshold by how much drift to expect: saved CUDA runs 5%; saved CPU
runs 15% (shared cores, frequency scaling and VM steal moved unchanged code by 13% between two runs
on the 2-core CI machine); interleaved runs, where drift hits both sides alike, 2% on CUDA and 5% on
the CPU. Nothing is random: the same samples always give the same verdict.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from .numerics.bootstrap import percentile_ci, pooled_medians, seeded
from .numerics.medians import Padded, median

ALPHA = 0.05
THRESHOLD = 0.05
BOOTSTRAP = 2000
SEED = 20240601
MIN_ROUNDS = 4        # the fewest rounds a side whose rank interval reaches 95% (least_rounds()): no verdict below
PAIRED_MIN_ROUNDS = 6 # the fewest pairs whose signed-rank interval reaches 95%; fewer pairs: the rank-sum interval
NOISE_Z = 2.0         # the floor: about 95% of round-against-round ratios of unchanged code fall inside
MAX_MORE = 20         # beyond this many more rounds (and 4x those made) an estimate means little


def default_threshold(backends, interleaved: bool) -> float:
    """The smallest relative change worth a verdict, by backend and by how the runs were made."""
    cpu = "cpu" in set(backends) or not set(backends) <= {"cuda"}
    if interleaved:
        return 0.05 if cpu else 0.02
    return 0.15 if cpu else 0.05


@dataclass
class TaskStats:
    """One task's A/B summary; `ratio` is B/A (above 1: B is slower)."""
    task: str
    n_a: int
    n_b: int
    median_a: float
    median_b: float
    ratio: float
    ci: tuple[float, float]   # (nan, nan) where a side has too few launches to resample
    p: float
    verdict: str              # 'faster' | 'slower' | 'same' | 'unsure'
    reason: str = ""          # why `same` or `unsure` when the numbers alone might suggest otherwise
    rounds_a: int = 1
    rounds_b: int = 1
    paired: bool = False      # interleaved runs: round i of A and of B were measured side by side
    noise_floor: float = float("nan")   # relative change the drift between rounds alone can make
    rounds_needed: int | None = None    # `unsure`: about how many more rounds per side would decide
    median_ci_a: tuple[float, float] = (float("nan"), float("nan"))   # each side's median, same bootstrap
    median_ci_b: tuple[float, float] = (float("nan"), float("nan"))

    @property
    def change(self) -> float:
        """Relative change of the median, B vs A (0.10 = 10% slower)."""
        return self.ratio - 1.0

    @property
    def impact_ms(self) -> float:
        """Milliseconds gained or lost per launch: the sort key of the comparison view."""
        return self.median_b - self.median_a

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}   # every field is immutable: no deep copy
        for key in ("ci", "median_ci_a", "median_ci_b"):
            d[key] = [None if math.isnan(c) else c for c in getattr(self, key)]
        d["noise_floor"] = None if math.isnan(self.noise_floor) else self.noise_floor
        return d


Rounds = Sequence[Sequence[float] | np.ndarray]


def as_rounds(rounds: Rounds) -> list[np.ndarray]:
    """Each round as a float array, empty rounds dropped."""
    out = [np.asarray(r, dtype=np.float64).ravel() for r in rounds]
    return [r for r in out if len(r)]


_TINY = float(np.finfo(np.float64).tiny)


def _log(x: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(x, _TINY))


def _round_units(rounds: list[np.ndarray]) -> np.ndarray:
    """The unit of evidence: each round's median launch time, on a log scale. Rounds, not launches,
    are what a comparison can treat as independent (launches of one round share its machine state),
    and a round's median does not care whether its first launch compiled or one launch met a cold cache."""
    return Padded(rounds, _log).medians()


EXACT_PAIRS = 900     # up to this many (a, b) pairs of rounds the rank distribution is counted exactly


@functools.lru_cache(maxsize=128)
def _mann_whitney_cdf(n: int, m: int) -> np.ndarray:
    """P(U <= u), u = 0..n*m, for U the number of (A round, B round) pairs with B above A when nothing
    changed: the coefficients of the Gaussian binomial coefficient [n+m choose n] over C(n+m, n)."""
    n, m = min(n, m), max(n, m)
    poly = np.zeros(n * m + 1)
    poly[0] = 1.0
    for i in range(1, n + 1):             # prod over i of (1 - q^(m+i)) / (1 - q^i)
        shifted = np.zeros_like(poly)
        shifted[m + i:] = poly[:len(poly) - (m + i)]
        poly -= shifted
        for s in range(i):
            poly[s::i] = np.cumsum(poly[s::i])
    return np.cumsum(poly / poly.sum())


@functools.lru_cache(maxsize=128)
def _signed_rank_cdf(n: int) -> np.ndarray:
    """P(T <= t), t = 0..n(n+1)/2, for T Wilcoxon's signed-rank sum of n pairs when nothing changed."""
    poly = np.zeros(n * (n + 1) // 2 + 1)
    poly[0] = 1.0
    for i in range(1, n + 1):
        poly[i:] = poly[i:] + poly[:-i].copy()
    return np.cumsum(poly / poly.sum())


def _depth(cdf: np.ndarray | None, total: int, mean: float, sd: float, alpha: float) -> tuple[int, float]:
    """How many of the sorted differences to cut from each end, k (the interval runs from the k-th smallest
    to the k-th largest), and the coverage that gives: the largest k with P(stat <= k - 1) <= alpha/2.
    k = 0: even the widest interval, all the differences, does not reach 1 - alpha."""
    if cdf is not None:
        k = int(np.searchsorted(cdf, alpha / 2 + 1e-12, side="right"))
        return k, (1.0 - 2 * float(cdf[k - 1]) if k else float("nan"))
    from scipy import stats as sps     # many rounds: the normal approximation, with a continuity correction
    k = int(math.floor(mean - sps.norm.ppf(1 - alpha / 2) * sd + 0.5))
    k = max(0, min(k, total // 2))
    return k, (1.0 - 2 * float(sps.norm.cdf((k - 0.5 - mean) / sd)) if k else float("nan"))


@dataclass(frozen=True)
class RankInterval:
    """The interval of the log ratio B/A from a rank test inverted (Hodges-Lehmann): `lo`, `hi` on the
    log scale, its exact `coverage` (at least 1 - alpha; nan when no interval reaches 1 - alpha at
    this sample), the test's two-sided `p` for "no change", and the `method`."""
    lo: float
    hi: float
    coverage: float
    p: float
    method: str

    @property
    def reached(self) -> bool:
        return math.isfinite(self.coverage)


def _p_two_sided(cdf: np.ndarray | None, stat: float, mean: float, sd: float) -> float:
    if cdf is not None:
        lo_tail = float(cdf[int(math.floor(stat + 1e-9))]) if stat >= 0 else 0.0
        mirror = 2 * mean - stat                       # the distribution is symmetric about its mean
        hi_tail = float(cdf[int(math.floor(mirror + 1e-9))]) if mirror >= 0 else 0.0
        return min(1.0, 2 * min(lo_tail, hi_tail))
    from scipy import stats as sps
    z = (abs(stat - mean) - 0.5) / sd if sd > 0 else 0.0
    return min(1.0, 2 * float(sps.norm.sf(max(z, 0.0))))


def rank_interval(a: Rounds, b: Rounds, paired: bool = False, alpha: float = ALPHA) -> RankInterval:
    """The 1 - alpha interval of B/A (log scale) from the rounds' medians, with coverage that holds whatever
    the shape of the launch times (normal, bimodal, heavy-tailed): it needs only that rounds are independent
    of each other (paired: that the pairs are), not a distribution.

    - Separate runs: the Hodges-Lehmann interval of the Mann-Whitney test, from the n*m differences between
      a B round's and an A round's log median. 4 rounds a side is the least that reaches 95% (97.1%); with
      3 a side no interval does (the most extreme order already has probability 2/20).
    - Paired (interleaved) rounds, 6 pairs or more: that of Wilcoxon's signed-rank test, from the pairs'
      log ratios (the drift a pair shared cancels). With fewer pairs the signed-rank test cannot reach 95%
      (the smallest p of 5 pairs is 1/16), so the separate-runs interval stands in; shared drift only makes
      that one wider.
    """
    return _rank_interval(_round_units(as_rounds(a)), _round_units(as_rounds(b)), paired, alpha)


def _rank_interval(ua: np.ndarray, ub: np.ndarray, paired: bool, alpha: float) -> RankInterval:
    """`rank_interval` from each side's rounds' log medians."""
    n, m = len(ua), len(ub)
    if paired and n != m:
        raise ValueError(f"paired rounds must match one to one (A has {n}, B has {m})")
    if paired and n >= PAIRED_MIN_ROUNDS:
        d = ub - ua
        walsh = np.sort(((d[:, None] + d[None, :]) / 2)[np.triu_indices(n)])
        total = len(walsh)
        mean, sd = total / 2, math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        cdf = _signed_rank_cdf(n) if total <= EXACT_PAIRS else None
        k, coverage = _depth(cdf, total, mean, sd, alpha)
        method, diffs = "signed-rank", walsh
    else:
        diffs = np.sort((ub[None, :] - ua[:, None]).ravel())
        total = n * m
        mean, sd = total / 2, math.sqrt(n * m * (n + m + 1) / 12)
        cdf = _mann_whitney_cdf(n, m) if total <= EXACT_PAIRS else None
        k, coverage = _depth(cdf, total, mean, sd, alpha)
        method = "rank-sum"
    stat = float(np.sum(diffs > 0) + 0.5 * np.sum(diffs == 0))   # the test's statistic: differences above 0
    p = 1.0 if np.all(diffs == 0) else _p_two_sided(cdf, stat, mean, sd)
    if not k:
        return RankInterval(float(diffs[0]), float(diffs[-1]), float("nan"), p, method)
    return RankInterval(float(diffs[k - 1]), float(diffs[total - k]), coverage, p, method)


def least_rounds(paired: bool = False, alpha: float = ALPHA) -> int:
    """The fewest rounds a side at which `rank_interval` reaches 1 - alpha (4 at 95%, paired or not)."""
    n = 2
    while 2.0 / math.comb(2 * n, n) > alpha:
        n += 1
    return n


def _logs(rounds: list[np.ndarray]) -> list[np.ndarray]:
    return [_log(r) for r in rounds]


def _median_sampling_var(logs: Padded, medians: np.ndarray) -> np.ndarray:
    """Per round, the variance its median has from its own launches' spread alone.

    The within-round scale is robust (the MAD of each launch's distance from its round's median,
    pooled, each distance scaled by sqrt(n/(n-1)) for being measured from the round's own median),
    so a few preemption spikes do not pass for launch noise and hide drift. A median of n launches
    varies like a mean for n <= 2 and about pi/2 times as much for larger n.
    """
    several = logs.lens >= 2
    if not several.any():
        return np.zeros(len(logs.lens))
    scale = np.sqrt(logs.lens[several] / (logs.lens[several] - 1))
    resid = np.abs(logs.table[several] - medians[several, None]) * scale[:, None]
    s_w = 1.4826 * median(resid[logs.valid[several]])
    n = logs.lens.astype(np.float64)
    return np.where(n <= 2, 1.0, math.pi / 2) * s_w ** 2 / n


def _spread_var(x: np.ndarray) -> float:
    """Variance from the mean absolute deviation about the median (x 1.2533 for a normal), the
    largest tenth of the deviations left out: one round hit by a burst of preemptions (two of its
    four launches, say) does not define the drift, while a machine that flips between two states
    (a bimodal spread, which a MAD would call zero) still counts in full. Scaled by n/(n-1) for
    being measured from the sample's own median."""
    dev = np.sort(np.abs(x - median(x)))
    dev = dev[:len(dev) - len(dev) // 10]
    return (1.2533 * float(np.mean(dev))) ** 2 * len(x) / (len(x) - 1)


def drift_sd(rounds: Rounds) -> float:
    """The spread (SD, log scale) of one side's round medians that its launch noise does not
    explain: how much the machine drifted between rounds. nan with fewer than 2 rounds."""
    logs = _logs(as_rounds(rounds))
    if len(logs) < 2:
        return float("nan")
    table = Padded(logs)
    return _drift_sd(table, table.medians())


def _drift_sd(table: Padded, med: np.ndarray) -> float:
    """`drift_sd` from one side's log launch times, a round a row, and the rounds' medians."""
    if len(med) < 2:
        return float("nan")
    return math.sqrt(max(0.0, _spread_var(med) - float(np.mean(_median_sampling_var(table, med)))))


def paired_drift_sd(a: Rounds, b: Rounds) -> float:
    """For rounds measured side by side: the spread (SD, log scale) of the per-round log ratio
    that launch noise does not explain. Drift that hits both sides alike cancels in it."""
    la, lb = _logs(as_rounds(a)), _logs(as_rounds(b))
    if len(la) != len(lb) or len(la) < 2:
        return float("nan")
    ta, tb = Padded(la), Padded(lb)
    return _paired_drift_sd(ta, ta.medians(), tb, tb.medians())


def _paired_drift_sd(ta: Padded, ma: np.ndarray, tb: Padded, mb: np.ndarray) -> float:
    """`paired_drift_sd` from each side's log launch times, a round a row, and the rounds' medians."""
    if len(ma) != len(mb) or len(ma) < 2:
        return float("nan")
    d = mb - ma
    noise = _median_sampling_var(ta, ma) + _median_sampling_var(tb, mb)
    return math.sqrt(max(0.0, _spread_var(d) - float(np.mean(noise))))


def noise_floor(a: Rounds, b: Rounds, paired: bool = False, z: float = NOISE_Z) -> float:
    """The relative change drift between rounds alone makes (0.08: ±8%); nan where a side has
    fewer than 2 rounds. Unpaired, the two sides' drifts add up; paired, that of the ratio."""
    ta, tb = (Padded(as_rounds(side), _log) for side in (a, b))
    return _noise_floor(ta, ta.medians(), tb, tb.medians(), paired, z)


def _noise_floor(ta: Padded, ma: np.ndarray, tb: Padded, mb: np.ndarray, paired: bool, z: float = NOISE_Z) -> float:
    """`noise_floor` from each side's log launch times, a round a row, and the rounds' medians."""
    if paired:
        s = _paired_drift_sd(ta, ma, tb, mb)
    else:
        s = math.hypot(_drift_sd(ta, ma), _drift_sd(tb, mb))
    return math.expm1(min(z * s, 50.0)) if math.isfinite(s) else float("nan")


@functools.lru_cache(maxsize=256)
def few_rounds_widening(rounds: int, alpha: float = ALPHA) -> float:
    """How much wider (on a log scale) the bootstrap interval is made for having only `rounds`
    rounds: resampling 3 rounds shows less spread than those rounds' machine has (the plug-in
    variance is short by (n-1)/n, and a normal quantile stands where Student's t with n-1 degrees
    of freedom belongs), so the interval is stretched about the ratio by
    t(1-alpha/2, n-1) / z(1-alpha/2) * sqrt(n/(n-1)): 2.7x for 3 rounds, 1.6x for 5, 1.2x for 10.
    A 3-round A/A on a loaded machine came out `faster` without it."""
    if rounds < 2:
        return 1.0
    # imported here, not at the top: SciPy is 70 MB and seconds of import that every CLI command
    # paid (compile too, through the bench commands' parser) before anything was compared
    from scipy import stats as sps
    q = 1.0 - alpha / 2
    return float(sps.t.ppf(q, rounds - 1) / sps.norm.ppf(q)) * math.sqrt(rounds / (rounds - 1))


def _shrunk(rounds: int, more: int, alpha: float) -> float:
    """How much the interval's half-width (log scale) shrinks with `more` rounds a side: 1/sqrt(rounds),
    and the few-rounds widening easing."""
    n = rounds + more
    return math.sqrt(rounds / n) * few_rounds_widening(n, alpha) / few_rounds_widening(rounds, alpha)


def _rounds_to_settle(rounds: int, ratio: float, ci: tuple[float, float], low: float, high: float,
                      alpha: float = ALPHA) -> int | None:
    """About how many more rounds a side would bring the interval, narrowing about the same ratio,
    wholly inside (low, high) (both on the ratio scale; a bound of 0 or inf is open); None when
    that would take more than MAX_MORE (or 4x the rounds made): more rounds are unlikely to settle it."""
    c = math.log(ratio)
    down, up = c - math.log(ci[0]), math.log(ci[1]) - c
    lo_gap = c - math.log(low) if low > 0 else math.inf
    hi_gap = math.log(high) - c if math.isfinite(high) else math.inf
    if not (lo_gap > 0 and hi_gap > 0 and math.isfinite(down) and math.isfinite(up)):
        return None
    for more in range(1, max(MAX_MORE, 4 * rounds) + 1):
        k = _shrunk(rounds, more, alpha)
        if down * k < lo_gap and up * k < hi_gap:
            return more
    return None


@dataclass(frozen=True)
class Verdict:
    verdict: str              # 'faster' | 'slower' | 'same' | 'unsure'
    reason: str
    rounds_needed: int | None = None


def verdict_of(ratio: float, ci: tuple[float, float], threshold: float, noise_floor: float, rounds: int,
               alpha: float = ALPHA, resolution_note: str = "", no_interval: str = "") -> Verdict:
    """The verdict from the evidence: the ratio B/A, its 1 - alpha interval, the threshold, the noise
    floor and the rounds a side (the fewer of the two). See the module's docstring for the rule."""
    lo, hi = ci
    level = f"{1 - alpha:.0%}"
    band_lo, band_hi = 1.0 - threshold, 1.0 + threshold
    note = f" ({resolution_note})" if resolution_note else ""
    if not math.isfinite(ratio) or ratio <= 0:
        return Verdict("unsure", "A's median is 0: no ratio")
    if rounds < MIN_ROUNDS:
        return Verdict("unsure", f"too few rounds: with {rounds} a side no interval reaches {level} whatever the "
                                 f"launch times (need {MIN_ROUNDS} a side)" + note, MIN_ROUNDS - rounds)
    if math.isnan(lo) or math.isnan(hi):
        return Verdict("unsure", (no_interval or f"no {level} interval") + note)
    span = f"the {level} interval [{lo:.3f}, {hi:.3f}]"
    if band_lo < lo and hi < band_hi:
        return Verdict("same", f"{span} lies within ±{threshold:.0%}" + note)
    floor = noise_floor if math.isfinite(noise_floor) else 0.0
    beyond_hi, beyond_lo = max(band_hi, 1.0 + floor), min(band_lo, 1.0 / (1.0 + floor))
    if (lo > beyond_hi and ratio <= beyond_hi) or (hi < beyond_lo and ratio >= beyond_lo):
        return Verdict("unsure", f"{span} and the ratio of the medians of all launches, {ratio:.3f}, disagree: "
                                 f"some rounds differ from the rest; look at the launches" + note)
    if lo > beyond_hi:
        return Verdict("slower", f"{span} lies above +{threshold:.0%} and the noise floor ±{floor:.1%}")
    if hi < beyond_lo:
        return Verdict("faster", f"{span} lies below -{threshold:.0%} and the noise floor ±{floor:.1%}")
    # unsure: say why, and whether more rounds would likely settle it (towards the side the ratio is on)
    if band_lo < ratio < band_hi:
        worst = max(1.0 - lo, hi - 1.0)
        more = _rounds_to_settle(rounds, ratio, ci, band_lo, band_hi, alpha)
        why = (f"{span} reaches past ±{threshold:.0%}: a change of {worst:.0%} cannot be ruled out, "
               f"so this is no evidence of `same`")
        if more is None:
            why += "; the change sits near the threshold, more rounds are unlikely to settle it"
        return Verdict("unsure", why + note, more)
    slower = ratio >= band_hi
    if abs(math.log(ratio)) <= math.log1p(floor):
        return Verdict("unsure", f"the change {ratio - 1:+.1%} is within the drift between rounds (noise floor "
                                 f"±{floor:.1%}): more rounds will not shrink it; quiet the machine or lock its "
                                 f"clocks" + note)
    more = (_rounds_to_settle(rounds, ratio, ci, beyond_hi, math.inf, alpha) if slower
            else _rounds_to_settle(rounds, ratio, ci, 0.0, beyond_lo, alpha))
    edge = "threshold" if (beyond_hi == band_hi if slower else beyond_lo == band_lo) else "noise floor"
    why = f"{span} reaches into the ±{threshold:.0%} band" if (lo <= band_hi if slower else hi >= band_lo) \
        else f"{span} does not clear the noise floor ±{floor:.1%}"
    if more is None:
        why += f": the change is small against the noise, more rounds are unlikely to decide it (the {edge} decides)"
    return Verdict("unsure", why + note, more)


def compare_rounds(task: str, a: Rounds, b: Rounds, resolution_ms: float = 0.0, alpha: float = ALPHA,
                   threshold: float = THRESHOLD, paired: bool = False, n_boot: int = BOOTSTRAP,
                   seed: int = SEED) -> TaskStats:
    """A/B statistics of one task from its launch times (ms), given round by round."""
    ra, rb = as_rounds(a), as_rounds(b)
    if resolution_ms > 0:  # a launch timed 0 was shorter than a tick: half a tick, not a zero to divide by
        ra, rb = ([np.maximum(r, resolution_ms / 2) for r in side] for side in (ra, rb))
    fa, fb = (np.concatenate(r) if r else np.array([]) for r in (ra, rb))
    if len(fa) == 0 or len(fb) == 0:
        raise ValueError(f"{task}: both sides need at least one launch (A has {len(fa)}, B has {len(fb)})")
    if paired and len(ra) != len(rb):
        raise ValueError(f"{task}: paired rounds must match one to one (A has {len(ra)}, B has {len(rb)})")
    ma, mb = median(fa), median(fb)
    # the ratio of the medians printed beside it, paired or not: it never points the other way from them
    ratio = mb / ma if ma > 0 else (1.0 if mb == ma else float("inf"))
    ci, p, no_interval = (float("nan"), float("nan")), 1.0, ""
    ta, tb = Padded(ra, _log), Padded(rb, _log)     # each round's log launch times, shared by what follows
    ua, ub = ta.medians(), tb.medians()
    if ma > 0:
        ri = _rank_interval(ua, ub, paired, alpha)
        p = ri.p
        if ri.reached:
            ci = (math.exp(ri.lo), math.exp(ri.hi))
        else:
            no_interval = (f"with {len(ra)} and {len(rb)} rounds no interval reaches {1 - alpha:.0%} whatever the "
                           f"launch times")
    floor = _noise_floor(ta, ua, tb, ub, paired)
    rounds = min(len(ra), len(rb))
    below_tick = resolution_ms > 0 and abs(mb - ma) <= resolution_ms
    note = f"the medians differ by less than the timer resolves, {resolution_ms * 1e3:.3g} µs" if below_tick else ""
    v = verdict_of(ratio, ci, threshold, floor, rounds, alpha, note, no_interval)
    single = [side for side, r in (("A", ra), ("B", rb)) if max(map(len, r)) < 2]
    if single and v.verdict in ("slower", "faster"):
        # one launch a round (a program that launches the task once a run): that launch's own spread and the
        # drift between rounds cannot be told apart, nor a first launch that compiled from a change
        v = Verdict("unsure", f"one launch a round on {' and '.join(single)}: its own spread (a cold first launch, "
                              f"a cold cache) cannot be told from the drift between rounds, so no noise floor and no "
                              f"verdict; launch the task several times a round")
    if below_tick and v.verdict in ("slower", "faster"):   # a difference the timer cannot see is no evidence
        v = Verdict("unsure", f"{note}: more rounds will not tell; time more work per launch")
    return TaskStats(task, len(fa), len(fb), ma, mb, ratio, ci, p, v.verdict, v.reason, len(ra), len(rb), paired,
                     floor, v.rounds_needed, _median_interval(ra, ma, n_boot, 1.0 - alpha, seed),
                     _median_interval(rb, mb, n_boot, 1.0 - alpha, seed + 1))


def median_interval(rounds: Rounds, n_boot: int = BOOTSTRAP, level: float = 0.95,
                    seed: int = SEED) -> tuple[float, float]:
    """One side's median with its interval from a hierarchical bootstrap (rounds, then launches within
    them, widened for few rounds): the whiskers of a median bar. (nan, nan) with
    fewer than 2 launches."""
    r = as_rounds(rounds)
    return _median_interval(r, median(np.concatenate(r)) if r else math.nan, n_boot, level, seed)


def _median_interval(r: list[np.ndarray], centre: float, n_boot: int, level: float, seed) -> tuple[float, float]:
    """`median_interval` of rounds as `as_rounds` gives them, whose launches' median is `centre`."""
    if sum(map(len, r)) < 2:
        return (float("nan"), float("nan"))
    rng = seeded(seed)
    meds = pooled_medians(r, rng.integers(0, len(r), (n_boot, len(r))), rng)
    if centre > 0:
        meds = centre * (np.maximum(meds, _TINY) / centre) ** few_rounds_widening(len(r))
    return percentile_ci(meds, level)
