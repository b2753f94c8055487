"""The device worker: one process that owns the backend (and, for CUDA, the context).

A sticky CUDA error or a hang kills only this process. `DeviceClient` notices (EOF, or no
message for longer than the per-launch timeout), restarts it, reloads what was loaded, and
reports a typed `Fault` against the task; the engine and everything the user typed live on in
the app process. Runs stream: the worker sends timings in batches while it launches, and
stops between launches when asked.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import threading
import time
import traceback

from ..lang.errors import QdRuntimeError
from .device import LoadItem, LoadResult, LocalDevice, RunJob, RunOutcome
from .faults import DeviceFault, Fault, WorkerFault, describe_exit
from .orphan_guard import die_with_parent
from .shared_arrays import SharedArrays


def worker_main(conn, backend: str, opts: dict):
    die_with_parent()  # a killed app must not leave this process spinning on a launch
    try:
        dev = LocalDevice(backend, **opts)
        conn.send(("ready", dev.info()))
    except Exception as e:  # noqa: BLE001 - e.g. CUDA unavailable: tell the client and exit
        conn.send(("error", f"{type(e).__name__}: {e}"))
        return
    while True:
        try:
            op, payload = conn.recv()
        except (EOFError, OSError):
            break
        if op == "exit":
            break
        if op == "halt":
            continue  # a stop that arrived after its run ended
        try:
            if op == "run":
                result = _serve_run(dev, conn, *payload)
            else:
                result = getattr(dev, op)(*payload)
            conn.send(("ok", result))
        except DeviceFault as f:
            conn.send(("fault", (f.task, str(f))))
            os._exit(3)  # the context is poisoned: die, the client starts a fresh worker
        except Exception as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-3)}"))
    dev.close()


def _serve_run(dev: LocalDevice, conn, job: RunJob, layout, scalars: dict) -> RunOutcome:
    shared = SharedArrays.attach(layout)
    args = dict(scalars) | shared.arrays()
    halted = []

    def should_stop():
        while not halted and conn.poll():
            op, _ = conn.recv()
            if op == "halt":
                halted.append(True)
        return bool(halted)
    try:
        return dev.run(job, args, lambda kind, data: conn.send((kind, data)), should_stop)
    finally:
        shared.close()


class DeviceClient:
    """Engine-side handle on the worker process; the same operations as `LocalDevice`."""

    def __init__(self, backend: str = "cpu", timeout: float = 60.0, **opts):
        self.backend_name, self.timeout, self.opts = backend, timeout, opts
        self.proc = None
        self.conn = None
        self.loaded: dict[str, LoadItem] = {}
        self.restarts = 0
        self._info: dict = {}

    # -- process management
    def start(self):
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, self.backend_name, self.opts), daemon=True,
                                name=f"qdexplorer-{self.backend_name}-worker")
        self.proc.start()
        child.close()
        self.conn = parent
        if not parent.poll(120):
            self.kill()
            raise QdRuntimeError(f"the {self.backend_name} device worker did not start within 120 s")
        status, info = parent.recv()
        if status != "ready":
            self.kill()
            raise QdRuntimeError(f"the {self.backend_name} device worker failed to start: {info}")
        self._info = info

    def kill(self):
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        self.proc, self.conn = None, None

    def close(self):
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(("exit", ()))
                self.proc.join(2)
            except (OSError, BrokenPipeError):
                pass
        self.kill()

    def _ensure(self):
        if self.proc is None or not self.proc.is_alive():
            self.start()
            if self.loaded:  # a restarted worker gets back what the old one had loaded
                self._call("load", (list(self.loaded.values()),), task="")

    def _fault(self, task: str, kind: str, message: str) -> WorkerFault:
        self.kill()
        self.restarts += 1
        return WorkerFault(Fault(task, kind, message))

    def _recv(self, task: str, timeout: float):
        try:
            if not self.conn.poll(timeout):
                raise self._fault(task, "timeout", f"timed out: no answer within {timeout:g} s (a hang?); "
                                                   f"the device worker was restarted")
            status, result = self.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            code = self.proc.exitcode if self.proc is not None else None
            if self.proc is not None:
                self.proc.join(2)
                code = self.proc.exitcode
            raise self._fault(task, "died", f"the device worker died ({describe_exit(code)}); "
                                            f"it was restarted") from None
        if status == "fault":
            if self.proc is not None:
                self.proc.join(5)
            raise self._fault(result[0] or task, "sticky", result[1] + " (the device worker was restarted)")
        if status == "error":
            raise RuntimeError(result)
        return status, result

    def _call(self, op, payload, task: str, timeout: float | None = None):
        try:
            self.conn.send((op, payload))
        except (OSError, BrokenPipeError):
            raise self._fault(task, "died", "the device worker is gone; it was restarted") from None
        return self._recv(task, timeout or self.timeout)[1]

    # -- the device operations
    def info(self) -> dict:
        self._ensure()
        return self._info

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        self._ensure()
        results = self._call("load", (items,), task=items[0].spec.task if items else "")
        for it, r in zip(items, results):
            if r.ok:
                self.loaded[it.spec.task] = it
        return results

    def unload(self, tasks: list[str]):
        for t in tasks:
            self.loaded.pop(t, None)
        if self.proc is not None and tasks:
            self._call("unload", (tasks,), task="")

    def loaded_tasks(self) -> list[str]:
        return list(self.loaded)

    def run(self, job: RunJob, args: dict, sink, stop: threading.Event | None = None) -> RunOutcome:
        """Stream one run: `sink` gets timing batches as they come and ('checkpoint', None) once
        `args` holds the first pass's outputs. A launch that gives no sign of life within
        `timeout` seconds is a hang: the worker is replaced and a WorkerFault raised."""
        self._ensure()
        arrays = {k: v for k, v in args.items() if hasattr(v, "__array_interface__")}
        scalars = {k: v for k, v in args.items() if k not in arrays}
        shared = SharedArrays.create(arrays)
        task = job.tasks[0] if job.tasks else ""
        try:
            self.conn.send(("run", (job, shared.layout, scalars)))
            halted = False
            last = time.monotonic()
            while True:
                if stop is not None and stop.is_set() and not halted:
                    self.conn.send(("halt", None))
                    halted = True
                if not self.conn.poll(0.05):
                    if time.monotonic() - last > self.timeout:
                        raise self._fault(task, "timeout", f"timed out: a launch gave no sign of life for "
                                                           f"{self.timeout:g} s (a hang?); the device worker was restarted")
                    continue
                status, result = self._recv(task, 0)
                last = time.monotonic()
                if status == "timings":
                    order = job.tasks
                    task = order[(order.index(result[-1].task) + 1) % len(order)]  # a hang is the next one
                    sink("timings", result)
                elif status == "checkpoint":
                    for k, v in shared.arrays().items():
                        if args[k].flags.writeable:  # a read-only input was only read (arg_check)
                            args[k][...] = v
                    sink("checkpoint", None)
                elif status == "ok":
                    return result
        finally:
            shared.close()
