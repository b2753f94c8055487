"""`qd.profiler`: Quadrants' kernel profiler, over whole kernel calls.

`qd.init(kernel_profiler=True)` records each call's time: the host's wall clock around the call
with the device synchronised at its end, so a CUDA call's time includes its launch overhead
(Quadrants' profiler times each task with CUDA events; `qdexplorer bench` gives per-task event
timings). CUPTI metrics are not collected: the metric calls are accepted and change nothing."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from ..calls import runtime_api

_records = runtime_api.PROFILE  # filled by runtime_api.call_kernel while the profiler is on


@dataclass
class KernelProfilerQueryResult:
    counter: int = 0
    min: float = 0.0
    max: float = 0.0
    avg: float = 0.0
    times: list = field(default_factory=list)


def clear_kernel_profiler_info():
    _records.clear()


def get_kernel_profiler_total_time() -> float:
    """Seconds, as Quadrants returns."""
    return sum(sum(v) for v in _records.values()) / 1e3


def query_kernel_profiler_info(name: str) -> KernelProfilerQueryResult:
    ts = _records.get(name, [])
    if not ts:
        return KernelProfilerQueryResult()
    return KernelProfilerQueryResult(len(ts), min(ts), max(ts), sum(ts) / len(ts), list(ts))


def print_kernel_profiler_info(mode: str = "count"):
    """A table per kernel (mode 'count') or per call ('trace'), in milliseconds."""
    if mode not in ("count", "trace"):
        raise ValueError(f"print_kernel_profiler_info(mode={mode!r}): use 'count' or 'trace'")
    total = sum(sum(v) for v in _records.values())
    print("=" * 73 + "\nqdexplorer kernel profiler (wall clock per call, device synchronised)\n" + "=" * 73)
    if mode == "count":
        print(f"{'[ %  total   count |  min    avg    max ]':<45} kernel name")
        for name, ts in sorted(_records.items(), key=lambda kv: -sum(kv[1])):
            share = 100.0 * sum(ts) / total if total else 0.0
            print(f"[{share:6.2f}% {sum(ts) / 1e3:7.3f} s {len(ts):6d}x |{min(ts):8.3f} {sum(ts) / len(ts):8.3f} "
                  f"{max(ts):8.3f} ms] {name}")
    else:
        for name, ts in _records.items():
            for t in ts:
                print(f"{t:10.3f} ms  {name}")
    print("-" * 73 + f"\n[100.00%] Total execution time: {total / 1e3:9.3f} s   number of results: "
          f"{sum(len(v) for v in _records.values())}\n" + "=" * 73)


class CuptiMetric:
    """A CUPTI metric description; accepted, never collected (see the module docstring)."""

    def __init__(self, name: str = "", header: str = "unnamed_header", val_format: str = "     {:8.0f} ",
                 scale: float = 1.0):
        self.name, self.header, self.val_format, self.scale = name, header, val_format, scale


def get_predefined_cupti_metrics(name: str = "") -> list:
    return []


def set_kernel_profiler_metrics(metric_list=None):
    pass


@contextmanager
def collect_kernel_profiler_metrics(metric_list=None):
    yield


def set_kernel_profiler_toolkit(toolkit_name: str = "default") -> bool:
    if toolkit_name != "default":
        raise ValueError(f"set_kernel_profiler_toolkit({toolkit_name!r}): only 'default' (timing) is available")
    return True


from . import surface as _compat  # noqa: E402

__getattr__ = _compat.module_getattr("qd.profiler", "qdexplorer.lang.compat.profiler")
