"""argparse types for numeric options: a value is checked where it is parsed, so nan, inf and
out-of-range values end in one usage message naming the option instead of a traceback later, or
worse, a check that quietly never fires (`--fail-if-slower nan` compares false with everything)."""
from __future__ import annotations

import argparse
import math


def _number(value: str, kind=float):
    try:
        return kind(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a {'whole ' if kind is int else ''}number, got {value!r}") from None


def seconds(value: str) -> float:
    """A timeout: finite and greater than 0."""
    v = _number(value)
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds greater than 0, got {value!r}")
    return v


def at_least(low: int):
    """A whole number of at least `low` (repeats, warm-ups, rounds, seeds)."""
    def parse(value: str) -> int:
        v = _number(value, int)
        if v < low:
            raise argparse.ArgumentTypeError(f"must be a whole number of at least {low}, got {value!r}")
        return v
    parse.__name__ = f"integer >= {low}"
    return parse


def probability(value: str) -> float:
    """A significance level: strictly between 0 and 1."""
    v = _number(value)
    if not (0 < v < 1):
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (e.g. 0.05), got {value!r}")
    return v


def percent(value: str) -> float:
    """A percentage threshold: finite and at least 0."""
    v = _number(value)
    if not (math.isfinite(v) and v >= 0):
        raise argparse.ArgumentTypeError(f"must be a percentage of at least 0, got {value!r}")
    return v
