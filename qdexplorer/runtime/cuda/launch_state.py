"""What an argument set keeps for its launches on CUDA, and only the CUDA backend reads.

The shared `Prepared` (backend_api.py) holds what every backend uses; `CudaPrepared` adds the
device pointers, one `HotLaunch` per task launched, the producer streams of the GPU arrays and the
launches still waiting for their times. A launch costs a few microseconds of the GPU's time, so its
host side reads names resolved once per argument set: a slots record's attribute read costs no more
than a tuple's index (measured with timeit, Python 3.11), and says what it reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..backend_api import Prepared
from ..launch import LaunchTiming
from .native_launch import EventRing, NativeLauncher


@dataclass(slots=True)
class HotLaunch:
    """One task's launch with one argument set, resolved once (`CudaBackend._hot`): every call
    below has its arguments bound; exactly one of `go` and `native` is set, or neither for an
    empty grid (nothing to launch)."""
    go: Callable[[], tuple] | None         # cuda-python's cuLaunchKernel on our stream: returns (CUresult,)
    kernel: str                            # the entry point's name, for each timed launch's record
    grid: int
    block: int
    debug: bool                            # wait for each launch and read its out-of-bounds record
    untimed: LaunchTiming                  # what every untimed launch returns: nothing in it is measured
    native: Callable[[], int] | None       # the native launch, one ctypes call: returns the CUresult
    native_timed: Callable[[int], int] | None  # event, launch, event into a ring (timing.py reads it back)
    block_words: np.ndarray | None         # the launch as the native calls read it, kept alive here


@dataclass
class CudaPrepared(Prepared):
    """An argument set made ready for launches on one GPU (`CudaBackend.prepare`)."""
    device: dict = field(default_factory=dict)  # argument -> (device pointer, shape), or the scalar itself
    hot: dict[str, HotLaunch] = field(default_factory=dict)
    streams: set = field(default_factory=set)   # producer streams of the GPU arrays (CUDA handles)
    native: NativeLauncher | None = None  # the native launch path, if built when these arguments were prepared
    ring: EventRing | None = None         # its event pairs of the launches awaiting their times (borrowed until `finish`)
    pending: list[Any] = field(default_factory=list)  # timed launches whose times `finish` has not read yet
