"""Shared helpers for the benchmark scripts (each prints one JSON document)."""
import json
import os
import platform
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def machine() -> dict:
    info = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
    try:
        from qdexplorer.runtime.cuda.detect import cuda_status
        st = cuda_status()
        if st.available:
            info.update(gpu=st.name, arch=st.arch, sms=st.sm_count, driver=st.driver_version)
    except Exception:  # noqa: BLE001
        pass
    return info


def event_timed(fn, sync, make_event, elapsed, warmup: int = 5, reps: int = 30) -> list[float]:
    """A peer's launch times by its own CUDA events (torch.cuda.Event, cupy.cuda.Event), after warm-ups."""
    for _ in range(warmup):
        fn()
    sync()
    ms = []
    for _ in range(reps):
        a, b = make_event(), make_event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(elapsed(a, b))
    return ms


def per_call_ms(fn, sync, calls: int) -> list[float]:
    """Wall ms of each of `calls` calls of `fn`, each followed by `sync` (what one call costs)."""
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        sync()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def queued_ms(fn, sync, calls: int) -> float:
    """Wall ms per call of `calls` calls back to back and one `sync` at the end (a time-step loop)."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    sync()
    return (time.perf_counter() - t0) * 1e3 / calls


def summary(samples_ms: list[float]) -> dict:
    s = sorted(samples_ms)
    return {"median_ms": statistics.median(s), "min_ms": s[0], "max_ms": s[-1], "n": len(s)}


def emit(doc: dict):
    doc.setdefault("machine", machine())
    print(json.dumps(doc, indent=2))
