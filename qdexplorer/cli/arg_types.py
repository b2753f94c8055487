"""argparse types for numeric options: a value is checked where it is parsed, so nan, inf and
out-of-range values end in one usage message naming the option instead of a traceback later, or
worse, a check that quietly never fires (`--fail-if-slower nan` compares false with everything).

Every numeric option is one `Number`: the rule of `qdexplorer.numbers` (finite, whole where it
counts, in a stated range), which the QDEXPLORER_* variables share. tests/harden/test_numbers.py
walks every subcommand's parser and fails on a numeric option of another type.
"""
from __future__ import annotations

import argparse

from ..numbers import MAX_COUNT, MAX_SECONDS, MAX_SEED, NumberError, Range

MAX_PERCENT = 1e6


class Number:
    """One validated numeric option (an argparse type): a bad value is argparse's one-line usage
    error (exit 2) naming the option, the value and the range."""

    def __init__(self, rng: Range, below_one: bool = False, words: tuple[str, ...] = ()):
        self.range, self.below_one, self.words = rng, below_one, words   # words: values taken as they are
        self.__name__ = rng.text()

    def __call__(self, value: str):
        if value in self.words:
            return value
        try:
            v = self.range.parse(value)
        except NumberError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        if self.below_one and v >= 1:
            raise argparse.ArgumentTypeError(f"must be between 0 and 1 (e.g. 0.05), got {value!r}")
        return v

    def __repr__(self) -> str:
        return f"Number({self.range.text()})"


def at_least(low: int, high: int = MAX_COUNT) -> Number:
    """A whole number from `low` (repeats, warm-ups, rounds)."""
    return Number(Range(low, high, whole=True))


seconds = Number(Range(0, MAX_SECONDS, low_open=True, unit="seconds"))     # a timeout
seed = Number(Range(0, MAX_SEED, whole=True))
probability = Number(Range(0, 1, low_open=True), below_one=True)          # a significance level
percent = Number(Range(0, MAX_PERCENT, unit="percent"))
repeats = at_least(1, 100)                                                 # profiles a side
mhz_or_default = Number(Range(100, 10000, whole=True, unit="MHz"), words=("default",))   # an SM clock
