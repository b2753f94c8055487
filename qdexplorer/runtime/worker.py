"""The device worker: one process on this machine that owns the backend (and, for CUDA, the context).

A sticky CUDA error or a hang kills only this process; the `DeviceClient` that talks to it over
a pipe (`WorkerPipe`) replaces it and reports a typed `Fault` against the task. The worker reads
the pipe on a thread of its own, so that a halt reaches the run in progress, and serves on its
main thread with the one serving loop (`serve.serve_forever`).
"""
from __future__ import annotations

import os
import threading
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from ..ir.errors import QdRuntimeError
from ..machine.helper_start import helper_context, helper_started
from .client import DeviceClient, TransportGone
from .device import LocalDevice
from .faults import describe_exit
from .messages import ExitMsg, Failed, Ready, Reply, Request
from .serve import Inbox, serve_forever

EXIT_FAULTED = 3


def worker_main(conn: Connection, backend: str, opts: dict[str, Any], env: dict[str, str] | None = None) -> None:
    """The worker process: hold the device, serve requests in order until told to exit."""
    helper_started(env)  # the app's environment; a killed app must not leave this process spinning on a launch
    inbox = Inbox()
    threading.Thread(target=read_requests, args=(conn, inbox), name="qdexplorer-worker-inbox", daemon=True).start()
    if serve_forever(lambda: LocalDevice(backend, **opts), inbox, conn.send) is not None:
        os._exit(EXIT_FAULTED)  # the context is poisoned: die, the client starts a fresh worker


def read_requests(conn: Any, inbox: Inbox) -> None:
    """Requests from `conn` (anything with a `recv`) into `inbox` until an exit or the connection
    closes: the worker's pipe, and a Ray actor's direct connection (`remote/channel.py`)."""
    while True:
        try:
            msg: Request = conn.recv()
        except (EOFError, OSError):
            break
        inbox.put(msg)
        if isinstance(msg, ExitMsg):
            return
    inbox.close()


class WorkerPipe:
    """A `Transport` to a device worker process on this machine, over a pipe; run arrays go
    through a shared memory-mapped file."""
    noun = "device worker"
    shares_memory = True

    def __init__(self, backend: str, opts: dict[str, Any]):
        self.backend, self.opts = backend, opts
        self.proc: BaseProcess | None = None
        self.conn: Connection | None = None

    def open(self) -> dict[str, Any]:
        ctx = helper_context()
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=worker_main, args=(child, self.backend, self.opts, dict(os.environ)), daemon=True,
                           name=f"qdexplorer-{self.backend}-worker")
        proc.start()
        child.close()
        self.proc, self.conn = proc, parent
        if not parent.poll(120):
            self.kill()
            raise QdRuntimeError(f"the {self.backend} device worker did not start within 120 s")
        try:
            reply = parent.recv()
        except (EOFError, OSError):
            proc.join(5)
            reply = Failed(f"it exited at once ({describe_exit(proc.exitcode)})")
        if not isinstance(reply, Ready):
            self.kill()
            why = reply.error if isinstance(reply, Failed) else repr(reply)
            raise QdRuntimeError(f"the {self.backend} device worker failed to start: {why}")
        return reply.info

    def is_open(self) -> bool:
        return self.proc is not None and self.proc.is_alive() and self.conn is not None

    def send(self, msg: Request) -> None:
        if self.conn is None:
            raise TransportGone("not running")
        try:
            self.conn.send(msg)
        except OSError as e:
            raise TransportGone(str(e) or type(e).__name__) from None

    def recv(self, wait: float) -> Reply | None:
        try:
            if self.conn is None:
                raise EOFError
            if not self.conn.poll(wait):
                return None
            reply: Reply = self.conn.recv()
            return reply
        except (EOFError, OSError):
            code = None
            if self.proc is not None:
                self.proc.join(2)
                code = self.proc.exitcode
            raise TransportGone(describe_exit(code)) from None

    def kill(self, grace: float = 0.0) -> None:
        if self.proc is not None:
            if grace:
                self.proc.join(grace)
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
        self.proc, self.conn = None, None

    def close(self) -> None:
        if self.is_open():
            try:
                assert self.conn is not None and self.proc is not None
                self.conn.send(ExitMsg())
                self.proc.join(2)
            except OSError:
                pass
        self.kill()


def worker_device(backend: str = "cpu", timeout: float = 60.0, **opts: Any) -> DeviceClient:
    """The engine's device for a worker process of `backend` on this machine."""
    return DeviceClient(WorkerPipe(backend, opts), backend, timeout)
