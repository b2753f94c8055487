"""Files are input: what a file holds (a sweep's resume plan, a counters cache entry, a history
row, settings, an export read back) is checked against a declared shape when read, so an edited
or damaged file is one message naming the file and the field, never a traceback, a hang (a
rounds count of 10**30) or a wrong result (per_round 0 reading as complete).

    PLAN = Obj(rounds=Int(1, 10**9), flush_l2=Bool(), workloads=Opt(List(Str())))
    check(doc, PLAN)          # the value, or Invalid("rounds: must be a whole number from 1 to ...")

Numbers follow `numbers.Range` (finite, whole where they count, in range); booleans are not numbers.
Reading the bytes is bounded elsewhere (compiler/safe_files.read_checked: a regular file, no link,
at most N bytes).
"""
from __future__ import annotations

import math
from typing import Any

from .ir.errors import QdError
from .numbers import NumberError, Range, shown


class Invalid(QdError):
    """A value that does not have its declared shape; the message starts with where in the document."""


class Spec:
    def check(self, v: Any, at: str) -> Any:
        raise NotImplementedError


def _fail(at: str, msg: str):
    raise Invalid(f"{at or 'the document'}: {msg}")


class Int(Spec):
    def __init__(self, low: float = -2**63, high: float = 2**63 - 1):
        self.range = Range(low, high, whole=True)

    def check(self, v, at):
        if isinstance(v, bool) or not isinstance(v, int):
            _fail(at, f"must be {self.range.text()}, got {shown(v)}")
        try:
            return self.range.parse(str(v))
        except NumberError as e:
            _fail(at, str(e))


class Float(Spec):
    def __init__(self, low: float = -math.inf, high: float = math.inf, low_open: bool = False):
        self.low, self.high, self.low_open = low, high, low_open

    def check(self, v, at):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or v < self.low or v > self.high or (self.low_open and v == self.low):
            _fail(at, f"must be a finite number from {self.low:g} to {self.high:g}, got {shown(v)}")
        return float(v)


class Str(Spec):
    def __init__(self, max_len: int = 1 << 16):
        self.max_len = max_len

    def check(self, v, at):
        if not isinstance(v, str) or len(v) > self.max_len:
            _fail(at, f"must be text of at most {self.max_len} characters, got {shown(v)}")
        return v


class Bool(Spec):
    def check(self, v, at):
        if not isinstance(v, bool):
            _fail(at, f"must be true or false, got {shown(v)}")
        return v


class Opt(Spec):
    def __init__(self, inner: Spec):
        self.inner = inner

    def check(self, v, at):
        return None if v is None else self.inner.check(v, at)


class List(Spec):
    def __init__(self, item: Spec, max_len: int = 1 << 20):
        self.item, self.max_len = item, max_len

    def check(self, v, at):
        if not isinstance(v, list) or len(v) > self.max_len:
            _fail(at, f"must be a list of at most {self.max_len} items, got {type(v).__name__}")
        return [self.item.check(x, f"{at}[{i}]") for i, x in enumerate(v)]


class Tuple(Spec):
    """A JSON list of fixed length, one shape per place (a tuple saved as JSON)."""
    def __init__(self, *items: Spec):
        self.items = items

    def check(self, v, at):
        if not isinstance(v, (list, tuple)) or len(v) != len(self.items):
            _fail(at, f"must be a list of {len(self.items)} items, got {shown(v)}")
        return [s.check(x, f"{at}[{i}]") for i, (s, x) in enumerate(zip(self.items, v))]


class Map(Spec):
    """A JSON object of any keys (text) to values of one shape."""
    def __init__(self, value: Spec, key: Spec | None = None, max_len: int = 1 << 20):
        self.value, self.key, self.max_len = value, key or Str(), max_len

    def check(self, v, at):
        if not isinstance(v, dict) or len(v) > self.max_len:
            _fail(at, f"must be an object, got {type(v).__name__}")
        return {self.key.check(k, f"{at}.<key>"): self.value.check(x, f"{at}.{k}") for k, x in v.items()}


class Obj(Spec):
    """A JSON object with these fields (each required unless its spec is Opt, or `optional` names
    it); other fields are kept as they are."""
    def __init__(self, optional: tuple[str, ...] = (), **fields: Spec):
        self.fields, self.optional = fields, set(optional)

    def check(self, v, at):
        if not isinstance(v, dict):
            _fail(at, f"must be an object, got {type(v).__name__}")
        out = dict(v)
        for name, spec in self.fields.items():
            where = f"{at}.{name}" if at else name
            if name not in v:
                if isinstance(spec, Opt) or name in self.optional:
                    continue
                _fail(where, "is missing")
            out[name] = spec.check(v[name], where)
        return out


def check(value: Any, spec: Spec, at: str = "") -> Any:
    """`value` checked (and numbers normalised), or Invalid naming the first field that is wrong."""
    return spec.check(value, at)
