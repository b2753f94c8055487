"""`qd.clock_freq_hz()`: how fast `qd.clock_counter()` counts, measured once on the current backend (two
kernel calls reading the counter, a known wall-clock interval apart), so cycle counts convert to time."""
from __future__ import annotations

import time

from ..calls import runtime_api
from ..intrinsics import clock_counter
from ..kernel import kernel
from ...ir.dtypes import i64

_measured: dict = {}


def clock_freq_hz() -> float:
    key = runtime_api.setting("arch", "")
    if key in _measured:
        return _measured[key]

    @kernel
    def _read_clock() -> i64:  # type: ignore[valid-type]
        return clock_counter()

    _read_clock()                  # compile first, so the interval below holds only the wait
    t0, c0 = time.perf_counter(), _read_clock()
    time.sleep(0.05)
    t1, c1 = time.perf_counter(), _read_clock()
    _measured[key] = float(c1 - c0) / (t1 - t0)
    return _measured[key]
