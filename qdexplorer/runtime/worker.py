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
import queue
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ..lang.errors import QdRuntimeError
from ..machine.orphan_guard import die_with_parent
from .device import LocalDevice
from .device_api import LoadItem, LoadResult, RunJob, RunOutcome, RunSink
from .faults import Fault, WorkerFault, describe_exit
from .messages import (CheckpointMsg, ExitMsg, Failed, Faulted, HaltMsg, LoadMsg, Ok, Ready, Reply, Request,
                       RunMsg, TimingsMsg, UnloadMsg, Work)
from .serve import serve
from .shared_arrays import SharedArrays

EXIT_FAULTED = 3


def worker_main(conn: Connection, backend: str, opts: dict[str, Any]) -> None:
    """The worker process: hold the device, serve requests in order until told to exit."""
    die_with_parent()  # a killed app must not leave this process spinning on a launch
    try:
        dev = LocalDevice(backend, **opts)
        conn.send(Ready(dev.info()))
    except Exception as e:  # noqa: BLE001 - e.g. CUDA unavailable: tell the client and exit
        conn.send(Failed(f"{type(e).__name__}: {e}"))
        return
    inbox: queue.SimpleQueue[tuple[Work, threading.Event] | None] = queue.SimpleQueue()
    threading.Thread(target=_read, args=(conn, inbox), name="qdexplorer-worker-inbox", daemon=True).start()
    while (item := inbox.get()) is not None:
        msg, stop = item
        answer = serve(dev, msg, conn.send, stop)
        conn.send(answer)
        if isinstance(answer, Faulted):
            os._exit(EXIT_FAULTED)  # the context is poisoned: die, the client starts a fresh worker
    dev.close()


def _read(conn: Connection, inbox: queue.SimpleQueue[tuple[Work, threading.Event] | None]) -> None:
    """Read the pipe on its own thread, so that a halt reaches the run in progress: each request
    gets its own stop Event, which a halt sets (a late halt sets a finished run's, harmlessly)."""
    stop = threading.Event()
    while True:
        try:
            msg: Request = conn.recv()
        except (EOFError, OSError):
            break
        match msg:
            case HaltMsg():
                stop.set()
            case ExitMsg():
                break
            case _:
                stop = threading.Event()
                inbox.put((msg, stop))
    inbox.put(None)


class DeviceClient:
    """Engine-side handle on the worker process: a `Device`, like `LocalDevice`."""

    def __init__(self, backend: str = "cpu", timeout: float = 60.0, **opts: Any):
        self.backend_name, self.timeout, self.opts = backend, timeout, opts
        self.proc: BaseProcess | None = None
        self.conn: Connection | None = None
        self.loaded: dict[str, LoadItem] = {}
        self.restarts = 0
        self._info: dict[str, Any] = {}

    # -- process management
    def start(self) -> None:
        ctx = mp.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=worker_main, args=(child, self.backend_name, self.opts), daemon=True,
                           name=f"qdexplorer-{self.backend_name}-worker")
        proc.start()
        child.close()
        self.proc, self.conn = proc, parent
        if not parent.poll(120):
            self.kill()
            raise QdRuntimeError(f"the {self.backend_name} device worker did not start within 120 s")
        try:
            reply = parent.recv()
        except (EOFError, OSError):
            proc.join(5)
            reply = Failed(f"it exited at once ({describe_exit(proc.exitcode)})")
        if not isinstance(reply, Ready):
            self.kill()
            why = reply.error if isinstance(reply, Failed) else repr(reply)
            raise QdRuntimeError(f"the {self.backend_name} device worker failed to start: {why}")
        self._info = reply.info

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        self.proc, self.conn = None, None

    def close(self) -> None:
        if self.proc is not None and self.proc.is_alive() and self.conn is not None:
            try:
                self.conn.send(ExitMsg())
                self.proc.join(2)
            except OSError:
                pass
        self.kill()

    def _pipe(self) -> Connection:
        """The pipe to a running worker (started, and given back what it had loaded, if need be)."""
        if self.proc is None or not self.proc.is_alive() or self.conn is None:
            self.start()
            if self.loaded:  # a restarted worker gets back what the old one had loaded
                self._call(LoadMsg(list(self.loaded.values())), task="")
        assert self.conn is not None
        return self.conn

    def _fault(self, task: str, kind: str, message: str) -> WorkerFault:
        self.kill()
        self.restarts += 1
        return WorkerFault(Fault(task, kind, message))

    def _send(self, msg: Request, task: str) -> None:
        try:
            self._pipe().send(msg)
        except OSError:
            raise self._fault(task, "died", "the device worker is gone; it was restarted") from None

    def _recv(self, task: str, timeout: float) -> Reply:
        """The worker's next reply. Faulted (a sticky error), a death and silence for `timeout`
        seconds (a hang) each replace the worker and raise a WorkerFault; Failed raises RuntimeError."""
        conn, proc = self.conn, self.proc
        try:
            if conn is None:
                raise EOFError
            if not conn.poll(timeout):
                raise self._fault(task, "timeout", f"timed out: no answer within {timeout:g} s (a hang?); "
                                                   f"the device worker was restarted")
            reply: Reply = conn.recv()
        except (EOFError, OSError):
            code = None
            if proc is not None:
                proc.join(2)
                code = proc.exitcode
            raise self._fault(task, "died", f"the device worker died ({describe_exit(code)}); "
                                            f"it was restarted") from None
        match reply:
            case Faulted(fault_task, message):
                if proc is not None:
                    proc.join(5)
                raise self._fault(fault_task or task, "sticky", message + " (the device worker was restarted)")
            case Failed(error):
                raise RuntimeError(error)
        return reply

    def _call(self, msg: LoadMsg | UnloadMsg, task: str) -> Ok:
        self._send(msg, task)
        reply = self._recv(task, self.timeout)
        if not isinstance(reply, Ok):
            raise RuntimeError(f"the device worker answered {msg!r} with {reply!r}")
        return reply

    # -- the device operations
    def info(self) -> dict[str, Any]:
        self._pipe()
        return self._info

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        self._pipe()
        reply = self._call(LoadMsg(items), task=items[0].spec.task if items else "")
        results = reply.value if isinstance(reply.value, list) else []
        for it, r in zip(items, results):
            if r.ok:
                self.loaded[it.spec.task] = it
        return results

    def unload(self, tasks: list[str]) -> None:
        for t in tasks:
            self.loaded.pop(t, None)
        if self.proc is not None and tasks:
            self._call(UnloadMsg(tasks), task="")

    def loaded_tasks(self) -> list[str]:
        return list(self.loaded)

    def run(self, job: RunJob, args: dict[str, Any], sink: RunSink, stop: threading.Event) -> RunOutcome:
        """Stream one run from the worker. The arrays travel through shared memory and are copied
        back into `args` at the checkpoint. A launch that gives no sign of life within `timeout`
        seconds is a hang: the worker is replaced and a WorkerFault raised."""
        conn = self._pipe()
        arrays = {k: v for k, v in args.items() if hasattr(v, "__array_interface__")}
        scalars = {k: v for k, v in args.items() if k not in arrays}
        shared = SharedArrays.create(arrays)
        task = job.tasks[0] if job.tasks else ""
        try:
            self._send(RunMsg(job, shared.layout, scalars), task)
            halted = False
            last = time.monotonic()
            while True:
                if stop.is_set() and not halted:
                    self._send(HaltMsg(), task)
                    halted = True
                if not conn.poll(0.05):
                    if time.monotonic() - last > self.timeout:
                        raise self._fault(task, "timeout", f"timed out: a launch gave no sign of life for "
                                                           f"{self.timeout:g} s (a hang?); the device worker was restarted")
                    continue
                reply = self._recv(task, 0)
                last = time.monotonic()
                match reply:
                    case TimingsMsg(batch):
                        order = job.tasks
                        task = order[(order.index(batch[-1].task) + 1) % len(order)]  # a hang is the next one
                        sink.timings(batch)
                    case CheckpointMsg():
                        for k, v in shared.arrays().items():
                            if args[k].flags.writeable:  # a read-only input was only read (arg_check)
                                args[k][...] = v
                        sink.checkpoint()
                    case Ok(RunOutcome() as outcome):
                        return outcome
                    case _:
                        raise RuntimeError(f"the device worker answered a run with {reply!r}")
        finally:
            shared.close()
