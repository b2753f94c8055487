"""`@qd.perf_dispatch`: a meta-function whose registered implementations are timed on the first calls
of each geometry (warm-ups, then timed runs, the device synchronised around each), the fastest one
kept and called from then on, re-timed after a number of calls or seconds, as Quadrants does. The
implementations must have the same effects (Quadrants' rule too): the timed runs are real calls."""
from __future__ import annotations

import time

from ..calls import runtime_api


class PerfDispatch:
    def __init__(self, fn, get_geometry_hash, first_warmup=1, warmup=0, active=1, repeat_after_count=None,
                 repeat_after_seconds=None):
        self.fn, self.__name__, self.__doc__ = fn, getattr(fn, "__name__", "perf_dispatch"), fn.__doc__
        self.get_geometry_hash = get_geometry_hash
        self.first_warmup, self.warmup, self.active = int(first_warmup), int(warmup), max(1, int(active))
        if repeat_after_count is None and repeat_after_seconds is None:
            repeat_after_count = 300
        self.repeat_after_count, self.repeat_after_seconds = repeat_after_count, repeat_after_seconds
        self.impls: list[tuple] = []              # (function, is_compatible or None)
        self.chosen: dict = {}                     # geometry -> [function, calls since, chosen at, timed before]

    def register(self, impl=None, *, is_compatible=None):
        """`@meta.register` or `@meta.register(is_compatible=lambda *args: ...)`."""
        def add(f):
            self.impls.append((f, is_compatible))
            return f
        return add if impl is None else add(impl)

    def _due(self, entry) -> bool:
        n, since = self.repeat_after_count, self.repeat_after_seconds
        return bool((n is not None and n > 0 and entry[1] >= n) or
                    (since is not None and since > 0 and time.perf_counter() - entry[2] >= since))

    def __call__(self, *args, **kwargs):
        candidates = [f for f, ok in self.impls if ok is None or ok(*args, **kwargs)]
        if not candidates:
            raise RuntimeError(f"{self.__name__}: no registered implementation is compatible with these arguments")
        key = self.get_geometry_hash(*args, **kwargs)
        entry = self.chosen.get(key)
        if entry is not None and entry[0] in candidates and not self._due(entry):
            entry[1] += 1
            return entry[0](*args, **kwargs)
        warm = self.warmup if entry is not None and entry[3] else self.first_warmup
        best, best_t, out = None, float("inf"), None
        for f in candidates:
            for _ in range(warm):
                f(*args, **kwargs)
            runtime_api.sync()
            t0 = time.perf_counter()
            for _ in range(self.active):
                out = f(*args, **kwargs)
            runtime_api.sync()
            t = (time.perf_counter() - t0) / self.active
            if t < best_t:
                best, best_t = f, t
        self.chosen[key] = [best, 0, time.perf_counter(), True]
        return out


def perf_dispatch(*, get_geometry_hash, first_warmup: int = 1, warmup: int = 0, active: int = 1,
                  repeat_after_count: int | None = None, repeat_after_seconds: float | None = None):
    def deco(fn):
        return PerfDispatch(fn, get_geometry_hash, first_warmup, warmup, active, repeat_after_count,
                            repeat_after_seconds)
    return deco
