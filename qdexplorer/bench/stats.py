"""Is B really faster or slower than A? Rounds, a hierarchical bootstrap, and a noise floor.

A run is recorded in *rounds*: blocks of launches spread over its duration. Launches within a
round share the machine's state of that moment (load, clocks, frequency scaling), so they are not
independent of each other, and the drift *between* rounds is the noise a comparison must see
past. Treating every launch as independent (one big sample per side) made two saved runs of
unchanged code come out 1.19× `slower` with p = 0.001 on a loaded 2-core machine.

Per task, with each side given as its rounds:

- the summary is the **median** (launch times are skewed: a floor and a tail), the effect the
  **ratio** of medians B/A. For paired runs (below) each pair of rounds is first divided by its
  own level (the geometric mean of its two medians), which takes out the drift both sides shared;
- its 1 - alpha (95%) interval comes from a **hierarchical bootstrap**: resample rounds, then
  launches within the chosen rounds, so the interval includes the drift between rounds. Runs
  made interleaved (A B A B …, the `pair` of their contexts) resample the same round indices on
  both sides: the drift they share cancels, as it did when they were measured. The p-value comes
  from the same replicates (twice the share on the far side of 1), so it agrees with the interval;
- the **noise floor**: how far one round's B/A moves from another's with nothing changed, i.e.
  the spread of the rounds' medians (on a log scale, from their mean absolute deviation) with the launches' own
  sampling noise taken out (a one-way variance-components estimate), times `NOISE_Z`. Between saved runs the
  drift between rounds stands in for the drift between runs, which one run cannot see;

A rank or t-test on the rounds was tried and left out: one burst-hit round made a clear 1.2x
change "not significant" (a t-test), and with 5 rounds a signed-rank test can never reach p < 0.05.

The verdict is an equivalence test and a difference test on the same interval, in `verdict_of`,
the one place every caller (CLI, window, sweeps, the Quadrants bridge, exports) gets it from:

- `same` only when the whole interval lies inside ±`threshold` (a change of that size is ruled
  out), never from the point estimate alone: a run compared with itself once said `same` with an
  interval of [0.46, 2.28];
- `slower` / `faster` only when the whole interval lies beyond the threshold *and* beyond the
  noise floor, with at least `MIN_ROUNDS` rounds a side (clearing the threshold implies p < alpha);
- otherwise `unsure`, with the reason, and in `rounds_needed` about how many more rounds per side
  would likely settle it either way (the interval narrows as 1/sqrt(rounds) about the same ratio),
  or None where more rounds would not help (a change inside the noise floor, or one sitting on
  the threshold).

`default_threshold` picks the threshold by how much drift to expect: saved CUDA runs 5%; saved CPU
runs 15% (shared cores, frequency scaling and VM steal moved unchanged code by 13% between two runs
on the 2-core CI machine); interleaved runs, where drift hits both sides alike, 2% on CUDA and 5% on
the CPU. The bootstrap uses a fixed seed, so the same samples always give the same verdict.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

ALPHA = 0.05
THRESHOLD = 0.05
BOOTSTRAP = 2000
SEED = 20240601
MIN_ROUNDS = 3        # fewer rounds a side cannot show the drift between them: never a verdict then
NOISE_Z = 2.0         # the floor: about 95% of round-against-round ratios of unchanged code fall inside
MAX_MORE = 20         # beyond this many more rounds (and 4x those made) an estimate means little
_CHUNK = 2_000_000    # bootstrap draws held in memory at once


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
        d = asdict(self)
        for key in ("ci", "median_ci_a", "median_ci_b"):
            d[key] = [None if math.isnan(c) else c for c in getattr(self, key)]
        d["noise_floor"] = None if math.isnan(self.noise_floor) else self.noise_floor
        return d


Rounds = Sequence[Sequence[float] | np.ndarray]


def as_rounds(rounds: Rounds) -> list[np.ndarray]:
    """Each round as a float array, empty rounds dropped."""
    out = [np.asarray(r, dtype=np.float64).ravel() for r in rounds]
    return [r for r in out if len(r)]


def _log(x: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(x, np.finfo(np.float64).tiny))


def _without_shared_drift(a: list[np.ndarray], b: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Paired rounds divided by their pair's level (the geometric mean of the two rounds' medians):
    what the round's drift did to both sides is taken out, what B did differently stays."""
    level = [math.sqrt(float(np.median(x)) * float(np.median(y))) or 1.0 for x, y in zip(a, b)]
    return [x / c for x, c in zip(a, level)], [y / c for y, c in zip(b, level)]


def _pooled_medians(rounds: list[np.ndarray], picks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Median of the launches of each bootstrap replicate: `picks` (B, R) names the rounds drawn;
    within each drawn round as many launches as it has are drawn with replacement."""
    lens = np.array([len(r) for r in rounds])
    width = int(lens.max())
    table = np.full((len(rounds), width), np.nan)
    for i, r in enumerate(rounds):
        table[i, :len(r)] = r
    n_boot, n_rounds = picks.shape
    step = max(1, _CHUNK // max(1, n_rounds * width))
    out = np.empty(n_boot)
    for s in range(0, n_boot, step):
        p = picks[s:s + step]
        n = lens[p]                                                   # (b, R) launches in each drawn round
        pos = (rng.random((len(p), n_rounds, width)) * n[..., None]).astype(np.int64)
        vals = table[p[..., None], pos]
        vals[np.arange(width)[None, None, :] >= n[..., None]] = np.nan   # draw len(round) launches only
        out[s:s + step] = np.nanmedian(vals.reshape(len(p), -1), axis=1)
    return out


def round_ratio(a: Rounds, b: Rounds, paired: bool = False) -> float:
    """The effect B/A: the ratio of the medians of all launches; paired, of the launches with each
    round pair's shared drift taken out."""
    ra, rb = as_rounds(a), as_rounds(b)
    if paired:
        ra, rb = _without_shared_drift(ra, rb)
    ma, mb = float(np.median(np.concatenate(ra))), float(np.median(np.concatenate(rb)))
    return mb / ma if ma > 0 else (1.0 if mb == ma else float("inf"))


def bootstrap_ratios(a: Rounds, b: Rounds, paired: bool = False, n_boot: int = BOOTSTRAP,
                     seed: int = SEED) -> np.ndarray:
    """Bootstrap replicates of the effect B/A (`round_ratio`): rounds drawn with replacement, then
    launches within each drawn round. `paired`: A's and B's rounds were measured side by side
    (same count, same order), so one draw of round indices serves both sides, and their shared
    drift is taken out first. Empty where a side has fewer than 2 launches: there is nothing to
    resample, and a one-point interval would look certain."""
    ra, rb = as_rounds(a), as_rounds(b)
    if sum(map(len, ra)) < 2 or sum(map(len, rb)) < 2:
        return np.array([])
    if paired:
        if len(ra) != len(rb):
            raise ValueError(f"paired rounds must match one to one (A has {len(ra)}, B has {len(rb)})")
        ra, rb = _without_shared_drift(ra, rb)
    rng = np.random.default_rng(seed)
    pick_a = rng.integers(0, len(ra), (n_boot, len(ra)))
    pick_b = pick_a if paired else rng.integers(0, len(rb), (n_boot, len(rb)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = _pooled_medians(rb, pick_b, rng) / _pooled_medians(ra, pick_a, rng)
    return ratios[np.isfinite(ratios)]


def percentile_ci(ratios: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    if len(ratios) == 0:
        return (float("nan"), float("nan"))
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(ratios, [tail, 100 - tail])
    return (float(lo), float(hi))


def bootstrap_p(ratios: np.ndarray) -> float:
    """Two-sided p of "no change" from the replicates: twice the share on the far side of 1 (at
    least 1/(n+1)), so p < alpha exactly when the 1 - alpha interval excludes 1."""
    if len(ratios) == 0:
        return 1.0
    if np.all(ratios == 1.0):
        return 1.0
    far = min(int(np.sum(ratios <= 1.0)), int(np.sum(ratios >= 1.0)))
    return min(1.0, 2 * (far + 1) / (len(ratios) + 1))


def hierarchical_ratio_ci(a: Rounds, b: Rounds, paired: bool = False, n_boot: int = BOOTSTRAP,
                          level: float = 0.95, seed: int = SEED) -> tuple[float, float]:
    """Percentile interval of the effect B/A from `bootstrap_ratios`; (nan, nan) where a
    side has fewer than 2 launches."""
    return percentile_ci(bootstrap_ratios(a, b, paired, n_boot, seed), level)


def _logs(rounds: list[np.ndarray]) -> list[np.ndarray]:
    tiny = np.finfo(np.float64).tiny
    return [np.log(np.maximum(r, tiny)) for r in rounds]


def _median_sampling_var(logs: list[np.ndarray]) -> np.ndarray:
    """Per round, the variance its median has from its own launches' spread alone.

    The within-round scale is robust (the MAD of each launch's distance from its round's median,
    pooled, each distance scaled by sqrt(n/(n-1)) for being measured from the round's own median),
    so a few preemption spikes do not pass for launch noise and hide drift. A median of n launches
    varies like a mean for n <= 2 and about pi/2 times as much for larger n.
    """
    resid = [np.abs(v - np.median(v)) * math.sqrt(len(v) / (len(v) - 1)) for v in logs if len(v) >= 2]
    if not resid:
        return np.zeros(len(logs))
    s_w = 1.4826 * float(np.median(np.concatenate(resid)))
    n = np.array([len(v) for v in logs], dtype=np.float64)
    return np.where(n <= 2, 1.0, math.pi / 2) * s_w ** 2 / n


def _spread_var(x: np.ndarray) -> float:
    """Variance from the mean absolute deviation about the median (x 1.2533 for a normal), the
    largest tenth of the deviations left out: one round hit by a burst of preemptions (two of its
    four launches, say) does not define the drift, while a machine that flips between two states
    (a bimodal spread, which a MAD would call zero) still counts in full. Scaled by n/(n-1) for
    being measured from the sample's own median."""
    dev = np.sort(np.abs(x - np.median(x)))
    dev = dev[:len(dev) - len(dev) // 10]
    return (1.2533 * float(np.mean(dev))) ** 2 * len(x) / (len(x) - 1)


def drift_sd(rounds: Rounds) -> float:
    """The spread (SD, log scale) of one side's round medians that its launch noise does not
    explain: how much the machine drifted between rounds. nan with fewer than 2 rounds."""
    logs = _logs(as_rounds(rounds))
    if len(logs) < 2:
        return float("nan")
    med = np.array([np.median(v) for v in logs])
    return math.sqrt(max(0.0, _spread_var(med) - float(np.mean(_median_sampling_var(logs)))))


def paired_drift_sd(a: Rounds, b: Rounds) -> float:
    """For rounds measured side by side: the spread (SD, log scale) of the per-round log ratio
    that launch noise does not explain. Drift that hits both sides alike cancels in it."""
    la, lb = _logs(as_rounds(a)), _logs(as_rounds(b))
    if len(la) != len(lb) or len(la) < 2:
        return float("nan")
    d = np.array([np.median(y) - np.median(x) for x, y in zip(la, lb)])
    noise = _median_sampling_var(la) + _median_sampling_var(lb)
    return math.sqrt(max(0.0, _spread_var(d) - float(np.mean(noise))))


def noise_floor(a: Rounds, b: Rounds, paired: bool = False, z: float = NOISE_Z) -> float:
    """The relative change drift between rounds alone makes (0.08: ±8%); nan where a side has
    fewer than 2 rounds. Unpaired, the two sides' drifts add up; paired, that of the ratio."""
    if paired:
        s = paired_drift_sd(a, b)
    else:
        s = math.hypot(drift_sd(a), drift_sd(b))
    return math.expm1(min(z * s, 50.0)) if math.isfinite(s) else float("nan")


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
               alpha: float = ALPHA, resolution_note: str = "") -> Verdict:
    """The verdict from the evidence: the ratio B/A, its 1 - alpha interval, the threshold, the noise
    floor and the rounds a side (the fewer of the two). See the module's docstring for the rule."""
    lo, hi = ci
    level = f"{1 - alpha:.0%}"
    band_lo, band_hi = 1.0 - threshold, 1.0 + threshold
    note = f" ({resolution_note})" if resolution_note else ""
    if not math.isfinite(ratio) or ratio <= 0:
        return Verdict("unsure", "A's median is 0: no ratio")
    if math.isnan(lo) or math.isnan(hi):
        return Verdict("unsure", "too few launches a side to resample (need 2): no interval" + note)
    if rounds < MIN_ROUNDS:
        return Verdict("unsure", f"too few rounds to see the drift between them ({rounds} a side; need "
                                 f"{MIN_ROUNDS})" + note, MIN_ROUNDS - rounds)
    span = f"the {level} interval [{lo:.3f}, {hi:.3f}]"
    if band_lo < lo and hi < band_hi:
        return Verdict("same", f"{span} lies within ±{threshold:.0%}" + note)
    floor = noise_floor if math.isfinite(noise_floor) else 0.0
    beyond_hi, beyond_lo = max(band_hi, 1.0 + floor), min(band_lo, 1.0 / (1.0 + floor))
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
    ma, mb = float(np.median(fa)), float(np.median(fb))
    ratio = round_ratio(ra, rb, paired) if ma > 0 else (1.0 if mb == ma else float("inf"))
    boot = bootstrap_ratios(ra, rb, paired, n_boot, seed) if ma > 0 else np.array([])
    if len(boot) and math.isfinite(ratio) and ratio > 0:
        boot = ratio * (boot / ratio) ** few_rounds_widening(min(len(ra), len(rb)), alpha)
    ci, p = percentile_ci(boot, 1.0 - alpha), bootstrap_p(boot)
    floor = noise_floor(ra, rb, paired)
    rounds = min(len(ra), len(rb))
    below_tick = resolution_ms > 0 and abs(mb - ma) <= resolution_ms
    note = f"the medians differ by less than the timer resolves, {resolution_ms * 1e3:.3g} µs" if below_tick else ""
    v = verdict_of(ratio, ci, threshold, floor, rounds, alpha, note)
    if below_tick and v.verdict in ("slower", "faster"):   # a difference the timer cannot see is no evidence
        v = Verdict("unsure", f"{note}: more rounds will not tell; time more work per launch")
    return TaskStats(task, len(fa), len(fb), ma, mb, ratio, ci, p, v.verdict, v.reason, len(ra), len(rb), paired,
                     floor, v.rounds_needed, median_interval(ra, n_boot, 1.0 - alpha, seed),
                     median_interval(rb, n_boot, 1.0 - alpha, seed + 1))


def median_interval(rounds: Rounds, n_boot: int = BOOTSTRAP, level: float = 0.95,
                    seed: int = SEED) -> tuple[float, float]:
    """One side's median with its interval from the same hierarchical bootstrap as the ratio's (rounds,
    then launches within them, widened for few rounds): the whiskers of a median bar. (nan, nan) with
    fewer than 2 launches."""
    r = as_rounds(rounds)
    if sum(map(len, r)) < 2:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    meds = _pooled_medians(r, rng.integers(0, len(r), (n_boot, len(r))), rng)
    centre = float(np.median(np.concatenate(r)))
    if centre > 0:
        meds = centre * (np.maximum(meds, np.finfo(np.float64).tiny) / centre) ** few_rounds_widening(len(r))
    return percentile_ci(meds, level)
