"""The one device client: the engine's `Device` for a device held in another process.

What carries the messages is a `Transport`: the device worker's pipe (`worker.py`) or a Ray
actor (`remote/ray_device.py`). Everything else is here, once: starting the far side and giving
a fresh one back what the old one had loaded, a run's stream (timing batches, the halt, the copy
back at the checkpoint, which leaves read-only inputs alone), and the faults. A sticky error, a
death and silence for longer than `timeout` (a hang) each replace the far side and raise a
`WorkerFault` against the task; the engine and everything the user typed live on here.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any, Protocol

import numpy as np

from .device_api import LoadItem, LoadResult, RunJob, RunOutcome, RunSink
from .faults import Fault, WorkerFault
from .messages import (CheckpointMsg, Failed, Faulted, HaltMsg, LoadMsg, Ok, Reply, Request, RunMsg, TimingsMsg,
                       UnloadMsg)
from .shared_arrays import SharedArrays

TICK_S = 0.05   # how often a streaming run looks at its stop flag and its silence


class TransportGone(Exception):
    """The far side is gone (a closed pipe, a dead actor); the text says why, in a few words."""


class Transport(Protocol):
    """How messages reach a device in another process and its replies come back."""
    noun: str            # what the far side is called in messages: 'device worker', 'device actor'
    shares_memory: bool  # a run's arrays can go through a shared file (same machine) rather than by value

    def open(self) -> dict[str, Any]:
        """Start the far side; its device's info once it is `Ready`. Raises if it cannot start."""

    def is_open(self) -> bool: ...

    def send(self, msg: Request) -> None:
        """Raises `TransportGone`."""

    def recv(self, wait: float) -> Reply | None:
        """The next reply, waiting up to `wait` seconds; None when none came. Raises `TransportGone`."""

    def kill(self, grace: float = 0.0) -> None:
        """End the far side now (after `grace` seconds to end by itself, for one that said it would)."""

    def close(self) -> None:
        """Ask the far side to close its device and end, then make sure it has."""


class DeviceClient:
    """A `Device`, like `LocalDevice`, whose device is on the far side of `transport`.

    `remember_loads`: a load of exactly what the far side already holds is answered here (worth it
    where a round trip is most of a run's start: a cluster far away)."""

    def __init__(self, transport: Transport, backend: str, timeout: float = 60.0, remember_loads: bool = False):
        self.transport, self.backend_name, self.timeout = transport, backend, timeout
        self.remember_loads = remember_loads
        self.loaded: dict[str, LoadItem] = {}
        self._results: dict[str, LoadResult] = {}
        self.restarts = 0
        self._info: dict[str, Any] = {}

    # -- the far side's life
    def _connected(self) -> Transport:
        """The transport to a running far side (started, and given back what it had loaded, if need be)."""
        if not self.transport.is_open():
            self._info = self.transport.open()
            if self.loaded:  # a fresh one gets back what the old one had loaded
                self._call(LoadMsg(list(self.loaded.values())), task="")
        return self.transport

    def _fault(self, task: str, kind: str, message: str, grace: float = 0.0) -> WorkerFault:
        self.transport.kill(grace)
        self.restarts += 1
        return WorkerFault(Fault(task, kind, message))

    def _died(self, task: str, why: TransportGone) -> WorkerFault:
        return self._fault(task, "died", f"the {self.transport.noun} died ({why}); the next command starts "
                                         f"a new one")

    def _send(self, msg: Request, task: str) -> None:
        try:
            self._connected().send(msg)
        except TransportGone as g:
            raise self._died(task, g) from None

    def _next(self, task: str, wait: float) -> Reply | None:
        """The far side's next reply within `wait` seconds. Faulted (a sticky error) and a death
        replace it and raise a WorkerFault; Failed raises RuntimeError."""
        try:
            reply = self.transport.recv(wait)
        except TransportGone as g:
            raise self._died(task, g) from None
        match reply:
            case Faulted(fault_task, message):
                raise self._fault(fault_task or task, "sticky", f"{message} (the {self.transport.noun} was "
                                                                f"replaced)", grace=5.0)
            case Failed(error):
                raise RuntimeError(error)
        return reply

    def _call(self, msg: LoadMsg | UnloadMsg, task: str) -> Ok:
        self._send(msg, task)
        reply = self._next(task, self.timeout)
        if reply is None:
            raise self._fault(task, "timeout", f"timed out: no answer within {self.timeout:g} s "
                                               f"{'for task ' + task + ' ' if task else ''}(a hang?); "
                                               f"the {self.transport.noun} was replaced")
        if not isinstance(reply, Ok):
            raise RuntimeError(f"the {self.transport.noun} answered {msg!r} with {reply!r}")
        return reply

    # -- the Device protocol
    def info(self) -> dict[str, Any]:
        """The device's own description, and what its transport says of itself (a Ray actor: whether runs
        go over its direct socket, since a run over Ray's calls alone costs milliseconds more)."""
        self._connected()
        describe = getattr(self.transport, "describe", None)
        return self._info | describe() if describe else self._info

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        self._connected()
        if self.remember_loads and items and all(self.loaded.get(it.spec.task) == it and it.spec.task in self._results
                                                 for it in items):
            return [dataclasses.replace(self._results[it.spec.task], ms=0.0, reused=True) for it in items]
        reply = self._call(LoadMsg(items), task=items[0].spec.task if items else "")
        results = reply.value if isinstance(reply.value, list) else []
        for it, r in zip(items, results):
            if r.ok:
                self.loaded[it.spec.task], self._results[it.spec.task] = it, r
        return results

    def unload(self, tasks: list[str]) -> None:
        for t in tasks:
            self.loaded.pop(t, None)
            self._results.pop(t, None)
        if self.transport.is_open() and tasks:
            self._call(UnloadMsg(tasks), task="")

    def loaded_tasks(self) -> list[str]:
        return list(self.loaded)

    def run(self, job: RunJob, args: dict[str, Any], sink: RunSink, stop: threading.Event) -> RunOutcome:
        """Stream one run. The arrays go through a shared file or by value, as the transport can,
        and are copied back into `args` at the checkpoint. A launch that gives no sign of life
        within `timeout` seconds is a hang: the far side is replaced and a WorkerFault raised."""
        transport = self._connected()
        arrays = {k: v for k, v in args.items() if hasattr(v, "__array_interface__")}
        scalars = {k: v for k, v in args.items() if k not in arrays}
        shared = SharedArrays.create(arrays) if transport.shares_memory else None
        task = job.tasks[0] if job.tasks else ""
        try:
            self._send(RunMsg(job, shared.layout if shared is not None else arrays, scalars), task)
            halted = False
            last = time.monotonic()
            while True:
                if stop.is_set() and not halted:
                    self._send(HaltMsg(), task)
                    halted = True
                reply = self._next(task, TICK_S)
                if reply is None:
                    if time.monotonic() - last > self.timeout:
                        raise self._fault(task, "timeout", f"timed out: task {task} gave no sign of life for "
                                                           f"{self.timeout:g} s (a hang?); the {transport.noun} "
                                                           f"was replaced")
                    continue
                last = time.monotonic()
                match reply:
                    case TimingsMsg(batch):
                        order = job.tasks
                        task = order[(order.index(batch[-1].task) + 1) % len(order)]  # a hang is the next one
                        sink.timings(batch)
                    case CheckpointMsg(by_value):
                        outputs = by_value if by_value is not None else shared.arrays() if shared else {}
                        _copy_back(outputs, args)
                        sink.checkpoint()
                    case Ok(RunOutcome() as outcome):
                        return outcome
                    case _:
                        raise RuntimeError(f"the {transport.noun} answered a run with {reply!r}")
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM (the CLI raises it) in the middle of a run: what was measured has
            # streamed to `sink` already; the far side is still in its launch loop (a billion repeats
            # would take days) and would be waited for at close, so it is ended now (issue 41)
            self.transport.kill()
            raise
        finally:
            if shared is not None:
                shared.close()

    def close(self) -> None:
        self.transport.close()


def _copy_back(outputs: dict[str, np.ndarray], args: dict[str, Any]) -> None:
    for k, v in outputs.items():
        if args[k].flags.writeable:  # a read-only input was only read (arg_check)
            args[k][...] = v
