"""The profiled process: load one kernel's task modules and run its launches once, under ncu.

It is the device worker's own path (`LocalDevice.load` then `LocalDevice.run`), given the same
records the engine sends the worker (`LoadItem`s, a `RunJob`, the built arguments), so what is
profiled is what the benchmark times. ncu's kernel filter and `-c 1` pick the task's first
launch; the launches sit in an NVTX range (domain 'qdexplorer', named after the task) when the
`nvtx` package is there, so ncu can be told to look nowhere else.

    python -m qdexplorer.counters.child REQUEST.pkl
"""
from __future__ import annotations

import pickle
import sys
import threading
from typing import Any

from ..runtime.device import LocalDevice
from .command import ERROR_PREFIX


class _Discard:
    def timings(self, batch: list) -> None:
        pass

    def checkpoint(self) -> None:
        pass


def _nvtx(task: str) -> tuple[Any, Any]:
    try:
        import nvtx
    except ImportError:
        return (lambda: None), (lambda: None)
    return (lambda: nvtx.push_range(message=task, domain="qdexplorer")), (lambda: nvtx.pop_range(domain="qdexplorer"))


def main(argv: list[str]) -> int:
    with open(argv[0], "rb") as f:
        req = pickle.load(f)
    dev = LocalDevice(req["backend"])
    try:
        failed = [r for r in dev.load(req["items"]) if not r.ok]
        if failed:
            print(ERROR_PREFIX + f"{failed[0].task}: load failed: {failed[0].error}", flush=True)
            return 2
        push, pop = _nvtx(req["task"])
        push()
        out = dev.run(req["job"], req["args"], _Discard(), threading.Event())
        pop()
        if out.error:
            print(ERROR_PREFIX + out.error, flush=True)
            return 2
    finally:
        dev.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception as e:  # noqa: BLE001 - one line for the parent to show, never a traceback
        print(ERROR_PREFIX + f"{type(e).__name__}: {e}", flush=True)
        sys.exit(2)
