"""GPU clocks read *while* timing: NVML sampled in a thread, each sample tagged with the round.

Reading the SM clock once before a run and once after compared an idle GPU (345 MHz) with a busy
one (1980 MHz) and warned "SM clock moved 474%" on every run, so the warning was never read. Here
a thread samples the SM and memory clocks every few milliseconds; samples where NVML says the GPU
was idle (clock event reason `GpuIdle`) or that fall between rounds are set aside, and the warning
compares the busy clock of one round with that of another: it fires only when the clock really
moved while launches were being timed (another process started, the GPU throttled).

NVML ships with the driver (`libnvidia-ml.so.1`, `nvml.dll`) and needs no CUDA context, so the
app process may read it (it never touches CUDA itself). Where there is no NVML (no GPU, CPU runs)
nothing is sampled and nothing is warned.
"""
from __future__ import annotations

import contextlib
import ctypes
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2
NVML_ERROR_INSUFFICIENT_SIZE = 7
GPU_IDLE = 0x1          # nvmlClocksEventReasonGpuIdle
DRIFT = 0.10            # warn when the busy SM clock of one round differs from another's by more
SETTLED = 0.02          # warm-up: the last busy samples agree within this fraction
PERIOD_S = 0.01
_lib: list = []


def load_nvml():
    if _lib:
        return _lib[0]
    lib = None
    for name in (("nvml.dll",) if sys.platform == "win32" else ("libnvidia-ml.so.1", "libnvidia-ml.so")):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is not None and lib.nvmlInit_v2() != 0:
        lib = None
    _lib.append(lib)
    return lib


@dataclass(frozen=True)
class ClockReading:
    sm: int                 # MHz
    mem: int | None         # MHz
    busy: bool              # NVML did not give "GPU idle" as a reason for the clocks
    procs: int | None = None   # processes with a compute context on the GPU (ours included); None: unknown


@dataclass(frozen=True)
class ClockSample:
    t: float                # seconds since the sampler started
    sm: int
    mem: int | None
    busy: bool
    round: int | None       # the round being timed when the sample was taken; None between rounds
    procs: int | None = None


class NvmlClocks:
    """Reads one device's clocks. NVML numbers devices in PCI order, CUDA by default fastest first;
    they agree on one-GPU machines and wherever CUDA_DEVICE_ORDER=PCI_BUS_ID."""

    def __init__(self, device: int = 0):
        self.lib = load_nvml()
        self.handle = ctypes.c_void_p()
        if self.lib is not None and self.lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(device),
                                                                           ctypes.byref(self.handle)) != 0:
            self.lib = None
        reasons = None
        for fn in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            reasons = getattr(self.lib, fn, None) if self.lib is not None else None
            if reasons is not None:
                break
        self._reasons = reasons
        procs = None
        for fn in ("nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
                   "nvmlDeviceGetComputeRunningProcesses"):
            procs = getattr(self.lib, fn, None) if self.lib is not None else None
            if procs is not None:
                break
        self._procs = procs

    def _process_count(self) -> int | None:
        """How many processes hold a compute context on the GPU: asked with no buffer, NVML says
        how many entries it would need (or success when there are none); no struct to lay out."""
        if self._procs is None:
            return None
        count = ctypes.c_uint(0)
        rc = self._procs(self.handle, ctypes.byref(count), None)
        return int(count.value) if rc in (0, NVML_ERROR_INSUFFICIENT_SIZE) else None

    @property
    def available(self) -> bool:
        return self.lib is not None

    def _clock(self, kind: int) -> int | None:
        mhz = ctypes.c_uint()
        if self.lib.nvmlDeviceGetClockInfo(self.handle, ctypes.c_int(kind), ctypes.byref(mhz)) != 0:
            return None
        return int(mhz.value)

    def __call__(self) -> ClockReading | None:
        if self.lib is None:
            return None
        sm = self._clock(NVML_CLOCK_SM)
        if sm is None:
            return None
        busy = True
        if self._reasons is not None:
            bits = ctypes.c_ulonglong()
            if self._reasons(self.handle, ctypes.byref(bits)) == 0:
                busy = not bits.value & GPU_IDLE
        return ClockReading(sm, self._clock(NVML_CLOCK_MEM), busy, self._process_count())


class ClockSampler:
    """Samples `read` every `period_s` in a daemon thread while entered; `timing(round)` marks the
    samples taken while that round's launches run. A reader that returns None samples nothing."""

    def __init__(self, read: Callable[[], ClockReading | None], period_s: float = PERIOD_S):
        self.read, self.period_s = read, period_s
        self.samples: list[ClockSample] = []
        self._round: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._t0 = 0.0

    def _loop(self) -> None:
        while True:
            r = self.read()
            if r is not None:
                self.samples.append(ClockSample(time.perf_counter() - self._t0, r.sm, r.mem, r.busy, self._round,
                                                r.procs))
            if self._stop.wait(self.period_s):
                return

    def __enter__(self) -> ClockSampler:
        self._t0 = time.perf_counter()
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="qdx-clock-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    @contextlib.contextmanager
    def timing(self, rnd: int) -> Iterator[None]:
        self._round = rnd
        try:
            yield
        finally:
            self._round = None

    def since(self, t: float) -> list[ClockSample]:
        return [s for s in list(self.samples) if s.t >= t]

    def now(self) -> float:
        return time.perf_counter() - self._t0


def _busy_timed(samples: list[ClockSample]) -> list[ClockSample]:
    return [s for s in samples if s.busy and s.round is not None]


def _segments(samples: list[ClockSample]) -> list[list[ClockSample]]:
    """The busy timed samples by round; a run of one round is cut into its first and second half."""
    busy = _busy_timed(samples)
    by_round: dict[int, list[ClockSample]] = {}
    for s in busy:
        by_round.setdefault(s.round, []).append(s)  # type: ignore[arg-type]
    if len(by_round) >= 2:
        return [v for _, v in sorted(by_round.items())]
    if len(busy) >= 4:
        return [busy[: len(busy) // 2], busy[len(busy) // 2:]]
    return [busy] if busy else []


def clock_summary(samples: list[ClockSample]) -> dict:
    """What the run's context records: the busy SM and memory clocks while timing (median, range,
    per round) and how many samples they come from; {} where nothing was sampled."""
    busy = _busy_timed(samples)
    if not busy:
        return {"samples": 0, "busy_samples": 0} if samples else {}
    sm = [s.sm for s in busy]
    mem = [s.mem for s in busy if s.mem is not None]
    segs = _segments(samples)
    procs = [s.procs for s in samples if s.round is not None and s.procs is not None]
    return {"sm": statistics.median(sm), "sm_min": min(sm), "sm_max": max(sm),
            "mem": statistics.median(mem) if mem else None,
            "sm_by_segment": [statistics.median(s.sm for s in seg) for seg in segs],
            "samples": len(samples), "busy_samples": len(busy)} | (
        {"gpu_processes_max": max(procs)} if procs else {})


def _newcomers(samples: list[ClockSample]) -> tuple[int, int] | None:
    """(processes on the GPU once our launches were running, the most seen later while timing)
    when more came; None otherwise. The baseline is taken over the first round (where our own
    device workers start their CUDA contexts), or, for a one-round run, at its first busy sample
    (our kernels running: our worker exists by then)."""
    timed = [s for s in samples if s.round is not None and s.procs is not None]
    if not timed:
        return None
    first = min(s.round for s in timed)  # type: ignore[type-var]
    if len({s.round for s in timed}) >= 2:
        base = max(s.procs for s in timed if s.round == first)  # type: ignore[type-var]
        later = [s.procs for s in timed if s.round != first]
    else:
        busy = [i for i, s in enumerate(timed) if s.busy]
        if not busy:
            return None
        base = timed[busy[0]].procs
        later = [s.procs for s in timed[busy[0] + 1:]]
    top = max(later, default=base)  # type: ignore[type-var]
    return (base, top) if top > base else None  # type: ignore[operator, return-value]


def clock_warning(samples: list[ClockSample], drift: float = DRIFT) -> str:
    """A warning when the busy SM clock differed between rounds (or halves of a one-round run) by
    more than `drift`, or when another process started using the GPU while launches were timed
    (it shares the SMs and the power budget, whether or not the clock shows it); "" when neither,
    or when too little was sampled to tell."""
    came = _newcomers(samples)
    other = (f"another process started using the GPU while launches were timed ({came[0]} → {came[1]} "
             f"processes with a CUDA context): timings may not be comparable; stop other GPU work or rerun"
             if came else "")
    moved = _clock_moved(samples, drift)
    return "; ".join(w for w in (moved, other) if w)


def _clock_moved(samples: list[ClockSample], drift: float) -> str:
    segs = [seg for seg in _segments(samples) if seg]
    if len(segs) < 2:
        return ""
    med = [statistics.median(s.sm for s in seg) for seg in segs]
    lo, hi = min(med), max(med)
    moved = (hi - lo) / hi
    if moved <= drift:
        return ""
    first, last = med.index(hi), med.index(lo)
    order = f"{hi:.0f} → {lo:.0f}" if first < last else f"{lo:.0f} → {hi:.0f}"
    return (f"SM clock moved {moved:.0%} while launches were timed ({order} MHz between rounds, busy GPU): "
            f"timings may not be comparable; stop other GPU work, lock clocks (nvidia-smi -lgc) or rerun")


def settled(samples: list[ClockSample], count: int = 3, tol: float = SETTLED) -> bool | None:
    """Whether the last `count` busy samples agree within `tol`; None when there are fewer busy
    samples than that (a GPU that never looked busy, e.g. microsecond kernels: nothing to settle)."""
    busy = [s.sm for s in samples if s.busy]
    if len(busy) < count:
        return None
    last = busy[-count:]
    return (max(last) - min(last)) / max(last) <= tol
