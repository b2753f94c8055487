"""Serving one request against a `LocalDevice`, whatever carries the requests.

The worker process reads them from a pipe; a remote device will receive them some other way.
Both hand each request to `serve`, with a function that sends a run's progress back and the
Event that the transport sets when a halt arrives for this run, and send the answer it returns.
"""
from __future__ import annotations

import threading
import traceback
from collections.abc import Callable

from .device import LocalDevice
from .device_api import RunOutcome
from .faults import DeviceFault
from .launch import LaunchTiming
from .messages import (Answer, CheckpointMsg, Failed, Faulted, LoadMsg, Ok, Progress, RunMsg, TimingsMsg,
                       UnloadMsg, Work)
from .shared_arrays import SharedArrays

Send = Callable[[Progress], None]


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
    """The run's sink on the device side: each result goes back as a message."""

    def __init__(self, send: Send):
        self.send = send

    def timings(self, batch: list[LaunchTiming]) -> None:
        self.send(TimingsMsg(batch))

    def checkpoint(self) -> None:
        self.send(CheckpointMsg())


def _run(dev: LocalDevice, msg: RunMsg, send: Send, stop: threading.Event) -> RunOutcome:
    shared = SharedArrays.attach(msg.layout)
    try:
        return dev.run(msg.job, dict(msg.scalars) | shared.arrays(), _Forward(send), stop)
    finally:
        shared.close()
