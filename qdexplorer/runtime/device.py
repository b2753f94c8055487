"""The device side: one backend behind load / run messages, in whatever process holds it.

`LocalDevice` runs in the device worker process for the app and the CLI, or in the script's
own process for `qd.init()` + kernel calls. A run streams: timings go to a sink in batches
while launches complete, a stop request is honoured between launches, and the outputs after
the first repetition are written back to the caller's arrays for the check.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ..machine.launch_spec import LaunchSpec
from .backend_api import Backend, Prepared, Queued
from .backends import make_backend
from .device_api import LoadItem, LoadResult, RunJob, RunOutcome, RunSink
from .faults import DeviceFault
from .launch import LaunchTiming

FLUSH_S = 0.05          # timings reach the views at ≥ 20 Hz while a run streams
FLUSH_LAUNCHES = 1024   # and at least every this many launches


# Who watches a script's launches (observe_launches): each gets every call's LaunchTimings once they are final
_LAUNCH_OBSERVERS: list[Callable[[list[LaunchTiming]], None]] = []


def observe_launches(fn: Callable[[list[LaunchTiming]], None]) -> Callable[[], None]:
    """Hand every script call's launches to `fn`, timed whatever the call asked, after they ended (their
    times final): how a tool that watches a program (the Quadrants bridge's `--ours` child) reads launch
    times without patching the device. Returns the function that stops it."""
    _LAUNCH_OBSERVERS.append(fn)

    def stop() -> None:
        if fn in _LAUNCH_OBSERVERS:
            _LAUNCH_OBSERVERS.remove(fn)
    return stop


class LocalDevice:
    """A backend in this process: the device worker's, or a script's own (`qd.init()`)."""

    def __init__(self, backend: str = "cpu", **opts: Any):
        self.backend_name = backend
        self.backend: Backend = make_backend(backend, **opts)
        self.queue: Queued | None = self.backend if isinstance(self.backend, Queued) else None   # launches that complete later
        self.tags: dict[str, str] = {}
        # what each task was loaded with: the same code at another block size (a block_dim variant)
        # must reach the backend, which launches with the spec it was given
        self.specs: dict[str, LaunchSpec] = {}

    def info(self) -> dict[str, Any]:
        return self.backend.info()

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        out = []
        to_link: dict[str, list[LoadItem]] = {}
        for it in items:
            name = it.spec.task
            if self.tags.get(name) == it.tag and self.specs.get(name) == it.spec and self.backend.modules.loaded(name):
                out.append(LoadResult(name, True, reused=True, resources=self.backend.modules.resources(name)))
                continue
            if it.kind == "cubin":
                to_link.setdefault(it.unit or name, []).append(it)
                continue
            t0 = time.perf_counter()
            try:
                self.backend.modules.load(it.spec, it.code, it.tag, unit=it.unit)
            except DeviceFault:
                raise  # the context is gone: the worker must die, not report a load error
            except Exception as e:  # noqa: BLE001 - reported against the task; previous module is kept
                out.append(LoadResult(name, False, (time.perf_counter() - t0) * 1e3, str(e)))
                continue
            self.tags[name], self.specs[name] = it.tag, it.spec
            out.append(LoadResult(name, True, (time.perf_counter() - t0) * 1e3,
                                  resources=self.backend.modules.resources(name)))
        for unit, group in to_link.items():
            out += self._link(unit, group)
        return out

    def _link(self, unit: str, group: list[LoadItem]) -> list[LoadResult]:
        """One link per unit for all of its new cubins (not one per task); its time is shared out."""
        t0 = time.perf_counter()
        try:
            self.backend.modules.load_linked(unit, [(it.spec, it.code, it.tag) for it in group])
        except DeviceFault:
            raise
        except Exception as e:  # noqa: BLE001 - reported against each task; the previous module is kept
            ms = (time.perf_counter() - t0) * 1e3
            return [LoadResult(it.spec.task, False, ms, str(e)) for it in group]
        ms = (time.perf_counter() - t0) * 1e3 / len(group)
        for it in group:
            self.tags[it.spec.task], self.specs[it.spec.task] = it.tag, it.spec
        return [LoadResult(it.spec.task, True, ms, resources=self.backend.modules.resources(it.spec.task)) for it in group]

    def unload(self, tasks: list[str]) -> None:
        for t in tasks:
            self.backend.modules.unload(t)
            self.tags.pop(t, None)
            self.specs.pop(t, None)

    def loaded_tasks(self) -> list[str]:
        return [t for t in self.tags if self.backend.modules.loaded(t)]

    def run_args(self, tasks: list[str], trips: dict[str, int], args: dict[str, Any], timed: bool = True,
                 wait: bool = True) -> list[LaunchTiming]:
        """Scripts: run `tasks` once, in order, on the caller's arrays (updated in place).
        `timed=False` skips the per-launch GPU timing (events) that plain script calls never read;
        `wait=False` (every array already on the device) returns once the launches are queued.
        While anyone observes launches (observe_launches) they are timed, and handed over at the end."""
        timed = timed or bool(_LAUNCH_OBSERVERS)
        prepared = self.backend.prepare(args, trips, in_place=True)
        try:
            timings = [self._launch(t, prepared, timed) for t in tasks]
            if wait:
                self.backend.fetch(prepared, args)
            elif self.queue is not None:
                self.queue.handoff(prepared)
        except DeviceFault:
            raise  # the context is gone: nothing can be copied back
        except Exception:
            try:  # what ran before the error is the caller's (a debug-mode assert's flag, partial results)
                self.backend.fetch(prepared, args)
            except Exception:  # noqa: BLE001 - the first error is the one to report
                pass
            raise
        finally:
            self._finish(prepared)   # timed: the launches' end events are waited for here
        for fn in tuple(_LAUNCH_OBSERVERS):
            fn(timings)
        return timings

    def _launch(self, task: str, prepared: Prepared, timed: bool = True) -> LaunchTiming:
        if not self.backend.modules.loaded(task):
            raise RuntimeError(f"task {task} is not loaded (its compile or load failed)")
        return self.backend.launch(task, prepared, timed)

    def run(self, job: RunJob, args: dict[str, Any], sink: RunSink, stop: threading.Event) -> RunOutcome:
        """Warm-ups, then `repeat` timed passes over `job.tasks`, streaming timings to `sink` in
        batches (≥ 20 Hz) and calling its `checkpoint` once `args` holds the first pass's outputs.
        `stop` is read before each launch after the first pass, which always completes."""
        t0 = time.perf_counter()
        out = RunOutcome()
        if job.warmup:
            self._warm_up(job, args)  # on their own copy: the checked pass starts from the built inputs
        prepared = self.backend.prepare(args, dict(job.trips))
        batch: list[LaunchTiming] = []
        last = time.perf_counter()

        def flush(force: bool = False) -> None:
            nonlocal batch, last
            if batch and (force or len(batch) >= FLUSH_LAUNCHES or time.perf_counter() - last >= FLUSH_S):
                self._finish(prepared)  # fills each timing; a fault surfaces here
                sink.timings(batch)
                batch, last = [], time.perf_counter()
        try:
            for rep in range(job.repeat):
                for t in job.tasks:
                    if rep > 0 and stop.is_set():  # the first pass always completes: it is checked
                        out.stopped = True
                        break
                    try:
                        if job.flush_l2 and self.queue is not None:
                            self.queue.flush_caches()
                        tm = self._launch(t, prepared)
                    except DeviceFault:
                        raise  # the worker must die
                    except Exception as e:  # noqa: BLE001 - reported against the task
                        out.error, out.fault_task = f"{t}: {e}", t
                        flush(force=True)
                        return out
                    tm.repeat, tm.workload = rep, job.workload
                    batch.append(tm)
                    out.launches += 1
                    flush()
                if out.stopped:
                    break
                if rep == 0:
                    flush(force=True)
                    self.backend.fetch(prepared, args)
                    sink.checkpoint()
            flush(force=True)
        finally:
            self._finish(prepared)  # device buffers stay allocated for the next run of the same shapes
            out.seconds = time.perf_counter() - t0
        return out

    def _warm_up(self, job: RunJob, args: dict[str, Any]) -> None:
        """Untimed passes (JIT caches, clocks, allocations) on a prepared copy of the inputs, so
        in-place kernels do not change what the first timed pass is checked against."""
        prepared = self.backend.prepare(args, dict(job.trips))
        try:
            for _ in range(job.warmup):
                for t in job.tasks:
                    if job.flush_l2 and self.queue is not None:
                        self.queue.flush_caches()
                    self._launch(t, prepared)
            self._finish(prepared)
        finally:
            self._finish(prepared)

    def _finish(self, prepared: Prepared) -> None:
        """Wait for the launches queued on `prepared` (host launches have finished already)."""
        if self.queue is not None:
            self.queue.finish(prepared)

    def sync(self) -> None:
        """Wait for everything queued on the device (`qd.sync()`)."""
        if self.queue is not None:
            self.queue.sync()

    def close(self) -> None:
        self.backend.close()
