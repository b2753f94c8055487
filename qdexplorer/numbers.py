"""The one rule for a number the user gives: a command-line option (cli/arg_types.Number) or a
QDEXPLORER_* environment variable (`env_number`, with every such variable listed in ENV below).

A number is finite, whole where it counts something, and inside a stated range; anything else
(nan, inf, -1, 1e308, 2**64, 'abc', '') is refused with one line naming where it came from and
the range, and the command exits 2. Nothing reads a QDEXPLORER_* number with float() or int()
of its own (tests/harden/test_numbers.py checks both).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

from .ir.errors import QdError

MAX_SECONDS = 7 * 24 * 3600.0    # a week: any timeout past it is a typo, and 1e308 s overflows deadlines
MAX_COUNT = 10**9                # repeats, warm-ups, rounds (a billion rounds is accepted and stops on Ctrl-C)
MAX_SEED = 2**32 - 1             # numpy's seed range
_WHOLE = re.compile(r"[+-]?[0-9]+\Z")


def shown(raw) -> str:
    """A value as an error line quotes it: in full when short, else its start and its length."""
    text = str(raw)
    return repr(text) if len(text) <= 40 else f"{text[:20]!r}… ({len(text)} characters)"


class NumberError(QdError):
    """A number out of its range, not finite, or not a number."""


@dataclass(frozen=True)
class Range:
    low: float
    high: float
    whole: bool = False
    low_open: bool = False     # low itself is refused (a timeout of 0)
    unit: str = ""
    zero: str = ""             # what 0 means, where it is allowed and special ("0: no limit")

    def text(self) -> str:
        def g(x: float) -> str:
            return str(int(x)) if float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"
        kind = "a whole number" if self.whole else "a number"
        unit = f" of {self.unit}" if self.unit else ""
        low = f"greater than {g(self.low)}" if self.low_open else f"from {g(self.low)}"
        to = " and at most " if self.low_open else " to "
        return f"{kind}{unit} {low}{to}{g(self.high)}" + (f" ({self.zero})" if self.zero else "")

    def parse(self, raw: str):
        text = str(raw).strip()
        if len(text) > 64:   # int() of thousands of digits is slow, then refused anyway
            raise NumberError(f"must be {self.text()}, got {shown(raw)}")
        if self.whole:
            if not _WHOLE.match(text.replace("_", "")) or "__" in text:
                raise NumberError(f"must be {self.text()}, got {shown(raw)}")
            v: float = int(text)
        else:
            try:
                v = float(text)
            except ValueError:
                raise NumberError(f"must be {self.text()}, got {shown(raw)}") from None
        if not math.isfinite(v) or v < self.low or v > self.high or (self.low_open and v == self.low):
            raise NumberError(f"must be {self.text()}, got {shown(raw)}")
        return v


def parse_number(raw: str, low: float, high: float, whole: bool = False, low_open: bool = False, unit: str = ""):
    return Range(low, high, whole, low_open, unit).parse(raw)


# Every QDEXPLORER_* variable that holds a number: its range and its default (used when unset or empty).
ENV: dict[str, tuple[Range, float]] = {
    "QDEXPLORER_CONNECT_TIMEOUT": (Range(0, 3600, low_open=True, unit="seconds"), 10.0),
    "QDEXPLORER_IMPORT_TIMEOUT": (Range(0, MAX_SECONDS, unit="seconds", zero="0: no limit"), 60.0),
    "QDEXPLORER_MAX_FILE_MB": (Range(0, 1 << 20, unit="megabytes", zero="0: no limit"), 8.0),
    "QDEXPLORER_OBJECT_STORE_MB": (Range(75, 1 << 24, whole=True, unit="megabytes"), 0),
    # the fraction of a GPU each CUDA device actor asks Ray for (0.5: two share one GPU)
    "QDEXPLORER_RAY_GPU_SHARE": (Range(0, 1, low_open=True, unit="GPUs"), 1.0),
}


def env_number(name: str):
    """The value of the numeric variable `name` (ENV's default when unset or empty), or one
    NumberError naming the variable, its value, the range and what to do."""
    rng, default = ENV[name]
    raw = os.environ.get(name, "")
    if not raw.strip():
        return default
    try:
        return rng.parse(raw)
    except NumberError:
        raise NumberError(f"{name}={shown(raw)} in the environment: must be {rng.text()}; fix it or unset it") from None


def env_set(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())
