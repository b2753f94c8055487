"""What "the same result" means.

- Integers: equal, with the same dtype and shape.
- Floats of an "exact" program: equal bit for bit, except that any NaN equals any NaN (NaN payloads
  and signs are not specified by either language). +0.0 and -0.0 differ.
- Floats of a "trans" program (sin, exp, log, tanh, atan2 on floats only, no branches on them):
  |a - b| <= RTOL * (|a| + |b| + scale), with scale the largest finite magnitude of that output;
  infinities must be equal, NaN matches NaN. RTOL is 2e-3 for f16, 1e-5 for f32, 1e-11 for f64
  (libm and libdevice are accurate to a few ulp; a program chains at most a few dozen operations),
  taken for the narrowest float type the program computes in, whatever the output's type: an f32
  sine one ulp apart, cast to an f64 output, is still an f32 result (`narrowest`).
- A float output whose only differences are zeros (or infinities) of opposite sign is a "zero_sign"
  mismatch, not a "value" one: still a mismatch, which the runner re-checks (`zero_sign_only`, runner.Pair.check).
- Errors: if exactly one side raises, that is a mismatch; if both do, the program is invalid
  (a generator bug) and is counted apart, never as agreement."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RTOL = {2: 2e-3, 4: 1e-5, 8: 1e-11}


@dataclass
class Mismatch:
    kind: str     # ours_error | ref_error | both_error | keys | dtype | shape | value | zero_sign | crash
    #               ref_timeout_twice | quadrants_optimizer_zero_sign | quadrants_constants
    #               | quadrants_optimizer_value (see runner.Pair.check)
    key: str
    detail: str

    def __str__(self):
        return f"{self.kind} {self.key}: {self.detail}"


def _float_equal(a: np.ndarray, b: np.ndarray, approx: bool, rtol: float | None = None) -> np.ndarray:
    nan = np.isnan(a) & np.isnan(b)
    if not approx:
        ua = a.view(f"u{a.dtype.itemsize}")
        ub = b.view(f"u{b.dtype.itemsize}")
        return (ua == ub) | nan
    wa, wb = a.astype(np.float64), b.astype(np.float64)
    fin = np.isfinite(wa) & np.isfinite(wb)
    finite_vals = np.abs(np.concatenate([wa[np.isfinite(wa)], wb[np.isfinite(wb)]]))
    scale = float(finite_vals.max()) if finite_vals.size else 0.0
    tol = (rtol or RTOL[a.dtype.itemsize]) * (np.abs(wa) + np.abs(wb) + scale)
    with np.errstate(invalid="ignore"):
        close = fin & (np.abs(wa - wb) <= tol)
    same_inf = ~fin & (wa == wb)
    return close | same_inf | nan


def sign_flip(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where a and b are zeros, or infinities, of opposite sign (the only effect a zero's sign has
    on + - * / of finite numbers: x / -0.0 is -inf)."""
    with np.errstate(invalid="ignore"):
        return ((a == 0) & (b == 0)) | (np.isinf(a) & np.isinf(b) & (a == -b))


def narrowest(source: str) -> int | None:
    """The byte width of the narrowest float type a program's text names, or None."""
    for t, n in (("qd.f16", 2), ("qd.f32", 4), ("qd.f64", 8)):
        if t in source:
            return n
    return None


def compare_value(key: str, want, got, approx: bool, width: int | None = None) -> Mismatch | None:
    if isinstance(want, (int, float, bool)) and not isinstance(want, np.ndarray):
        if type(want) is not type(got):
            return Mismatch("dtype", key, f"Quadrants {type(want).__name__} {want!r}, ours {type(got).__name__} {got!r}")
        if isinstance(want, float):
            a, b = np.array([want]), np.array([got])  # a returned f32 arrives as a Python float: its tolerance
            rtol = RTOL[min(width or 4, 4)]
            kind = "zero_sign" if sign_flip(a, b).all() else "value"
            return None if _float_equal(a, b, approx, rtol).all() else Mismatch(kind, key, f"Quadrants {want!r}, ours {got!r}")
        return None if want == got else Mismatch("value", key, f"Quadrants {want!r}, ours {got!r}")
    if not isinstance(want, np.ndarray) or not isinstance(got, np.ndarray):
        return None if repr(want) == repr(got) else Mismatch("value", key, f"Quadrants {want!r}, ours {got!r}")
    if want.dtype != got.dtype:
        return Mismatch("dtype", key, f"Quadrants {want.dtype}, ours {got.dtype}")
    if want.shape != got.shape:
        return Mismatch("shape", key, f"Quadrants {want.shape}, ours {got.shape}")
    if want.dtype.kind == "f":
        ok = _float_equal(want, got, approx, RTOL[min(width or 8, want.dtype.itemsize)])
    else:
        ok = want == got
    if ok.all():
        return None
    bad = np.argwhere(~ok)
    first = tuple(int(x) for x in bad[0])
    # zeros of opposite sign (or infinities, as x / -0.0 makes) and nothing else: its own kind, which
    # the runner checks further (see zero_sign_only)
    kind = "zero_sign" if want.dtype.kind == "f" and bool(sign_flip(want, got)[~ok].all()) else "value"
    return Mismatch(kind, key, f"{len(bad)} of {ok.size} differ; at {first}: Quadrants {want[first]!r}, "
                               f"ours {got[first]!r}")


def compare(want: dict, got: dict, cls: str, width: int | None = None) -> list[Mismatch]:
    """`width`: the narrowest float width the program computes in (`narrowest`), for "trans" tolerances."""
    if want.get("error") == "timeout twice":
        # Quadrants ran past the limit, in the long-lived child and again alone with a longer one: no
        # answer to compare with. Its own class, neither a pass nor a mismatch of ours.
        return [Mismatch("ref_timeout_twice", "-", f"Quadrants timed out twice; ours {'ok' if got.get('ok') else got.get('error')}")]
    if not want.get("ok") or not got.get("ok"):
        if not want.get("ok") and not got.get("ok"):
            return [Mismatch("both_error", "-", f"Quadrants {want.get('error')}; ours {got.get('error')}")]
        if not got.get("ok"):
            kind = "crash" if str(got.get("error", "")).startswith(("crash", "timeout")) else "ours_error"
            return [Mismatch(kind, "-", str(got.get("error")))]
        return [Mismatch("ref_error", "-", str(want.get("error")))]
    w, g = want["result"], got["result"]
    if set(w) != set(g):
        return [Mismatch("keys", "-", f"only Quadrants {sorted(set(w) - set(g))}, only ours {sorted(set(g) - set(w))}")]
    out = []
    for k in w:
        m = compare_value(k, w[k], g[k], approx=cls == "trans", width=width)
        if m:
            out.append(m)
    return out


def zero_sign_only(ms: list[Mismatch]) -> bool:
    """Every difference of a program is the sign of a zero (integers, dtypes, shapes and every other
    float bit agree)."""
    return bool(ms) and all(m.kind == "zero_sign" for m in ms)
