"""The device worker: one process that owns the backend (and, for CUDA, the context).

A sticky CUDA error or a hang kills only this process. `DeviceClient` notices (EOF or timeout),
restarts it, reloads what was loaded, and reports the fault against the task; the engine and
everything the user typed live on in the app process.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import traceback

from ..lang.errors import QdRuntimeError
from .device import DeviceFault, LoadItem, LoadResult, LocalDevice, WorkloadResult
from .orphan_guard import die_with_parent


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
            msg = conn.recv()
        except (EOFError, OSError):
            break
        op, payload = msg
        if op == "stop":
            break
        try:
            result = getattr(dev, op)(*payload)
            conn.send(("ok", result))
        except DeviceFault as f:
            conn.send(("fault", (f.task, str(f))))
            os._exit(3)  # the context is poisoned: die, the client starts a fresh worker
        except Exception as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-3)}"))
    dev.close()


class WorkerFault(QdRuntimeError):
    def __init__(self, task: str, message: str):
        super().__init__(message)
        self.task = task


def describe_exit(code: int | None) -> str:
    """'killed by signal SIGSEGV' / 'exit code 3' / 'still running': never 'exit code None'."""
    if code is None:
        return "it stopped answering"
    if code < 0:
        import signal
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class DeviceClient:
    """Engine-side handle on the worker process; same methods as `LocalDevice`."""

    def __init__(self, backend: str = "cpu", timeout: float = 60.0, **opts):
        self.backend_name, self.timeout, self.opts = backend, timeout, opts
        self.proc = None
        self.conn = None
        self.loaded: dict[str, LoadItem] = {}
        self.restarts = 0
        self._info: dict = {}
        self.on_fault = None  # callback(task, message)

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
                self.conn.send(("stop", ()))
                self.proc.join(5)
            except (OSError, BrokenPipeError):
                pass
        self.kill()

    def _ensure(self):
        if self.proc is None or not self.proc.is_alive():
            self.start()
            if self.loaded:  # a restarted worker gets back what the old one had loaded
                self._call("load", (list(self.loaded.values()),), task="")

    def _call(self, op, payload, task: str, timeout: float | None = None):
        try:
            self.conn.send((op, payload))
            if not self.conn.poll(timeout or self.timeout):
                self.kill()
                self.restarts += 1
                raise WorkerFault(task, f"timed out after {timeout or self.timeout:.0f} s (hang?); "
                                        f"the device worker was restarted")
            status, result = self.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            if self.proc is not None:
                self.proc.join(5)  # exitcode stays None until the process is reaped
            how = describe_exit(self.proc.exitcode if self.proc is not None else None)
            self.kill()
            self.restarts += 1
            raise WorkerFault(task, f"the device worker died ({how}); it will be restarted") from None
        if status == "fault":
            self.proc.join(5)
            self.kill()
            self.restarts += 1
            raise WorkerFault(result[0] or task, result[1] + " (the device worker was restarted)")
        if status == "error":
            raise RuntimeError(result)
        return result

    # -- LocalDevice API
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
        if self.proc is not None:
            self._call("unload", (tasks,), task="")

    def run_workload(self, project_dir, workload, tasks, repeat=1, seed=0, timeout=None) -> WorkloadResult:
        self._ensure()
        try:
            return self._call("run_workload", (project_dir, workload, tasks, repeat, seed),
                              task=tasks[0] if tasks else "", timeout=timeout)
        except WorkerFault as f:
            return WorkloadResult(workload, "", self.backend_name, ok=False, error=str(f), fault_task=f.task)

    def run_args(self, tasks, args, repeat=1, workload=""):
        self._ensure()
        timings, arrays = self._call("run_args_copy", (tasks, args, repeat, workload), task=tasks[0])
        for k, v in arrays.items():
            args[k][...] = v
        return timings
