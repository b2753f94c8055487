"""Is B really faster or slower than A? Medians, a bootstrap CI of their ratio, and a rank test.

Launch times are skewed (a floor plus a long tail of preemptions and clock hiccups), so the
summary is the median, the effect is the ratio of medians B/A, its 95% interval comes from a
percentile bootstrap (no normality assumed), and the significance from Mann–Whitney U (SciPy).
A task is called faster or slower only when all of these agree: the p-value is below alpha,
the interval excludes 1, the medians differ by more than the timer can resolve, and by at least
`threshold` (as asv and critcmp also ignore small changes: two runs of unchanged code drift,
significantly so with many launches); otherwise it is `same`. `default_threshold` picks it by
how much drift to expect: saved CUDA runs 5%; saved CPU runs 15% (shared cores, frequency
scaling and VM steal moved unchanged code by 13% between two runs on the 2-core CI machine);
interleaved A/B rounds, where drift hits both sides alike, 2% on CUDA and 5% on the CPU.
The bootstrap uses a fixed seed, so the same samples always give the same verdict.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

ALPHA = 0.05
THRESHOLD = 0.05


def default_threshold(backends, interleaved: bool) -> float:
    """The smallest relative change worth a verdict, by backend and by how the runs were made."""
    cpu = "cpu" in set(backends) or not set(backends) <= {"cuda"}
    if interleaved:
        return 0.05 if cpu else 0.02
    return 0.15 if cpu else 0.05
BOOTSTRAP = 2000
SEED = 20240601


@dataclass
class TaskStats:
    """One task's A/B summary; `ratio` is B/A (above 1: B is slower)."""
    task: str
    n_a: int
    n_b: int
    median_a: float
    median_b: float
    ratio: float
    ci: tuple[float, float]
    p: float
    verdict: str              # 'faster' | 'slower' | 'same'
    reason: str = ""          # why `same` when the numbers alone might suggest otherwise

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
        d["ci"] = list(self.ci)
        return d


def bootstrap_ratio_ci(a: np.ndarray, b: np.ndarray, n_boot: int = BOOTSTRAP, level: float = 0.95,
                       seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of median(b) / median(a), resampling each side independently."""
    rng = np.random.default_rng(seed)
    ma = np.median(a[rng.integers(0, len(a), (n_boot, len(a)))], axis=1)
    mb = np.median(b[rng.integers(0, len(b), (n_boot, len(b)))], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = mb / ma
    ratios = ratios[np.isfinite(ratios)]
    if len(ratios) == 0:
        return (float("nan"), float("nan"))
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(ratios, [tail, 100 - tail])
    return (float(lo), float(hi))


def mann_whitney_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Mann–Whitney U p-value; 1.0 when the test is undefined (e.g. all values equal)."""
    from scipy.stats import mannwhitneyu
    if len(a) < 2 or len(b) < 2:
        return 1.0
    if np.all(a == a[0]) and np.all(b == a[0]):
        return 1.0
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    return p if np.isfinite(p) else 1.0


def compare_samples(task: str, a, b, resolution_ms: float = 0.0, alpha: float = ALPHA,
                    threshold: float = THRESHOLD, n_boot: int = BOOTSTRAP, seed: int = SEED) -> TaskStats:
    """A/B statistics of one task's launch times (milliseconds)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if len(a) == 0 or len(b) == 0:
        raise ValueError(f"{task}: both sides need at least one launch (A has {len(a)}, B has {len(b)})")
    ma, mb = float(np.median(a)), float(np.median(b))
    ratio = mb / ma if ma > 0 else (1.0 if mb == ma else float("inf"))
    ci = bootstrap_ratio_ci(a, b, n_boot, seed=seed) if ma > 0 else (ratio, ratio)
    p = mann_whitney_p(a, b)
    verdict, reason = "same", ""
    if len(a) < 3 or len(b) < 3:
        reason = "too few launches to tell (need 3 per side)"
    elif abs(mb - ma) <= resolution_ms:
        reason = f"difference below the timer resolution ({resolution_ms * 1e3:.3g} µs)"
    elif abs(ratio - 1.0) < threshold:
        reason = f"change {ratio - 1:+.1%} is below the {threshold:.0%} threshold"
    elif p >= alpha:
        reason = f"p = {p:.3g} ≥ {alpha}"
    elif ci[0] <= 1.0 <= ci[1]:
        reason = "the ratio's 95% interval includes 1"
    else:
        verdict = "slower" if ratio > 1 else "faster"
    return TaskStats(task, len(a), len(b), ma, mb, ratio, ci, p, verdict, reason)


def median_ci(x, n_boot: int = BOOTSTRAP, level: float = 0.95, seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of one side's median (the whiskers of a median bar)."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) == 0:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    meds = np.median(x[rng.integers(0, len(x), (n_boot, len(x)))], axis=1)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(meds, [tail, 100 - tail])
    return (float(lo), float(hi))
