"""How soon Stop ends a run: the seconds from `Engine.stop()` to `run()` returning with the timings kept.

The tests assert only that Stop ends a run early and keeps its timings (a wall-clock bound there failed
under load); the figure the README promises ("after the launch in flight") is measured here. Each trial
runs a kernel of about 5 ms a launch on the CPU backend and presses Stop after `--after` seconds.
"""
import argparse
import statistics
import tempfile
import textwrap
import threading
import time
from pathlib import Path

from _common import emit

SLOW = """
import numpy as np
import qdexplorer.lang as qd

@qd.kernel
def busy(x: qd.types.ndarray(dtype=qd.f32, ndim=1), n: qd.i32):
    for i in range(x.shape[0]):
        acc = x[i]
        for j in range(n):
            acc = acc * 0.999 + 0.001
        x[i] = acc

@qd.workload(busy)
def busy_wl(rng):
    return dict(x=np.zeros(1024, np.float32), n=4000)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--after", type=float, default=1.0, help="seconds into the run to press Stop")
    args = ap.parse_args()
    from qdexplorer.engine import Engine
    tmp = Path(tempfile.mkdtemp(prefix="qdx-stop-"))
    (tmp / "p").mkdir()
    (tmp / "p" / "k.py").write_text(textwrap.dedent(SLOW))
    latencies, launches = [], []
    with Engine(tmp / "p", backend="cpu", workers=1, cache_dir=str(tmp / "c")) as eng:
        eng.compile()
        for _ in range(args.trials):
            pressed: list[float] = []
            timer = threading.Timer(args.after, lambda: (pressed.append(time.perf_counter()), eng.stop()))
            timer.start()
            (res,) = eng.run(["busy_wl"], repeat=1_000_000)
            latencies.append(time.perf_counter() - pressed[0])
            launches.append(res.launches)
            assert res.status == "stopped", res.status
    emit({"what": "seconds from Stop to run() returning, CPU backend, ~5 ms launches",
          "trials": args.trials, "stop_after_s": args.after, "latency_s": [round(x, 4) for x in latencies],
          "median_s": round(statistics.median(latencies), 4), "max_s": round(max(latencies), 4),
          "launches_kept": launches})


if __name__ == "__main__":
    main()
