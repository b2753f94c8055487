"""The one serving loop: a device, in whatever process holds it, answering requests in order.

The device worker reads requests from its pipe; a Ray actor receives them as method calls. Both
hand each one to an `Inbox` as it arrives and run `serve_forever` on one thread, which opens the
device there (a CUDA context is current on the thread that made it), says `Ready`, and answers
each request through `serve`, sending a run's progress while it goes on. A halt reaches the run in
progress through the inbox, not through the queue of work, so it is honoured between launches.
"""
from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

from .device import LocalDevice
from .device_api import RunOutcome
from .faults import DeviceFault
from .launch import LaunchTiming
from .messages import (Answer, CheckpointMsg, ExitMsg, Failed, Faulted, HaltMsg, LoadMsg, Ok, Progress, Ready,
                       Reply, Request, RunMsg, TimingsMsg, UnloadMsg, Work)
from .shared_arrays import Layout, SharedArrays

Send = Callable[[Progress], None]


class Inbox:
    """Requests in the order they arrived. Each piece of work gets its own stop Event, which a halt
    sets (a late halt sets a finished run's, harmlessly); an exit ends the loop after the work
    queued before it."""

    def __init__(self) -> None:
        self._q: queue.SimpleQueue[tuple[Work, threading.Event] | None] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._lock = threading.Lock()   # a Ray actor takes calls on several threads

    def put(self, msg: Request) -> None:
        with self._lock:
            match msg:
                case HaltMsg():
                    self._stop.set()
                case ExitMsg():
                    self._q.put(None)
                case _:
                    self._stop = threading.Event()
                    self._q.put((msg, self._stop))

    def close(self) -> None:
        """No more requests will come (the transport is gone): end the loop."""
        self._q.put(None)

    def get(self) -> tuple[Work, threading.Event] | None:
        return self._q.get()


def serve_forever(open_device: Callable[[], LocalDevice], inbox: Inbox, send: Callable[[Reply], None],
                  describe: Callable[[LocalDevice], dict[str, Any]] = LocalDevice.info) -> Faulted | None:
    """Open the device and say `Ready` with `describe(device)` (or `Failed`, and return), then
    answer every request until the inbox ends, and close the device. Returns the `Faulted` answer,
    already sent, when the device's context is poisoned: the caller must then end its process."""
    try:
        dev = open_device()
        send(Ready(describe(dev)))
    except Exception as e:  # noqa: BLE001 - e.g. CUDA unavailable: the client raises it
        send(Failed(f"{type(e).__name__}: {e}"))
        return None
    while (item := inbox.get()) is not None:
        msg, stop = item
        answer = serve(dev, msg, send, stop)
        send(answer)
        if isinstance(answer, Faulted):
            return answer
    dev.close()
    return None


def serve(dev: LocalDevice, msg: Work, send: Send, stop: threading.Event) -> Answer:
    """Do what `msg` asks of `dev`. A `Faulted` answer means the device's context is poisoned:
    the caller sends it, then ends the process that holds the device."""
    try:
        match msg:
            case LoadMsg(items):
                return Ok(dev.load(items))
            case UnloadMsg(tasks):
                dev.unload(tasks)
                return Ok()
            case RunMsg():
                return Ok(_run(dev, msg, send, stop))
    except DeviceFault as f:
        return Faulted(f.task, str(f))
    except Exception as e:  # noqa: BLE001 - reported to the client, which raises it there
        return Failed(f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-3)}")
    return Failed(f"not a request a device serves: {msg!r}")


class _Forward:
    """The run's sink on the device side: each result goes back as a message, with the outputs
    when the arrays came by value (shared ones the client reads in place). The outputs are the
    run's own arrays, which later passes go on changing: `send` serialises a message before it
    returns (a pipe, the Ray device's direct connection), or copies them (`DeviceActor._reply`)."""

    def __init__(self, send: Send, by_value: dict[str, np.ndarray] | None):
        self.send, self.by_value = send, by_value

    def timings(self, batch: list[LaunchTiming]) -> None:
        self.send(TimingsMsg(batch))

    def checkpoint(self) -> None:
        self.send(CheckpointMsg(None if self.by_value is None else dict(self.by_value)))


def _run(dev: LocalDevice, msg: RunMsg, send: Send, stop: threading.Event) -> RunOutcome:
    if not isinstance(msg.arrays, Layout):
        own: dict[str, np.ndarray] = {}
        seen: set[int] = set()
        for k, v in msg.arrays.items():   # the message's own memory, unless read-only (Ray's object
            # store) or passed twice (one array under two names): then a copy, as the worker's would be
            own[k] = v if v.flags.writeable and id(v) not in seen else np.array(v, copy=True)
            seen.add(id(v))
        return dev.run(msg.job, dict(msg.scalars) | own, _Forward(send, own), stop)
    shared = SharedArrays.attach(msg.arrays)
    try:
        return dev.run(msg.job, dict(msg.scalars) | shared.arrays(), _Forward(send, None), stop)
    finally:
        shared.close()
