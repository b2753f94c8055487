"""Where the tasks run: a worker process, this process, or a Ray actor on a cluster's GPU.

Kept apart from the Engine because starting, switching and closing a device is one decision
(backend, placement, launch timeout) that the runs, the compile's unloading and the counters all
ask the same question of: "the device, started if it is not".
"""
from __future__ import annotations

from typing import Any

from ..runtime.device import LocalDevice
from ..runtime.device_api import Device
from ..runtime.targets import check_backend
from ..runtime.worker import worker_device


class DevicePlace:
    """The backend and where it runs; the device itself is started on first use."""

    def __init__(self, backend: str, *, in_process: bool, launch_timeout: float, cluster: str | None,
                 node: str | None, gpu: int | None):
        self.backend, self.in_process, self.launch_timeout = backend, in_process, launch_timeout
        self.cluster, self.node, self.gpu = cluster, node, gpu
        self.started: Device | None = None   # None until a run (or a question) needs it

    def device(self) -> Device:
        if self.started is None:
            if self.cluster:
                # deliberate lazy load: Ray (optional) only when a cluster is asked for; local sessions never load it
                from ..remote import cluster, ray_device
                cluster.connect(self.cluster)
                self.started = ray_device.actor_device(self.backend, timeout=self.launch_timeout, node_id=self.node,
                                                       gpu=self.gpu)
            elif self.in_process:
                self.started = LocalDevice(self.backend)
            else:
                self.started = worker_device(self.backend, timeout=self.launch_timeout)
        return self.started

    def info(self) -> dict[str, Any]:
        return self.device().info()

    def switch(self, backend: str) -> None:
        """Another backend: the device of this one closes, the next use starts the other's."""
        if backend != self.backend:
            check_backend(backend, here=self.cluster is None)   # a cluster's GPU needs none on this machine
            self.close()
            self.backend = backend

    def close(self) -> None:
        if self.started is not None:
            self.started.close()
            self.started = None
