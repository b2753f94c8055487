"""Counters on a Ray device: the profile is made on the device's node, read here.

The same child as on this machine (`counters.collect.profile_here`) runs in a Ray task pinned to
the node of the device actor, with the actor's GPU made the only visible one, so ncu profiles the
GPU the task runs on. Only the request (load items, job, arrays) goes there and only the report's
bytes come back: reading it needs Nsight Compute's report reader here, not a CUDA toolkit.
The probe runs there too, since ncu, the GPU and the permissions that matter are that node's.
"""
from __future__ import annotations

import os
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..counters import probe as P
from ..counters.collect import ProfileReply, ProfileRequest, profile_here


def _pin_gpu(gpu: int | None) -> None:
    os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"   # indices as nvidia-smi's, as the device actor counts them
    if gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)


@ray.remote(num_cpus=1, num_gpus=0, max_retries=0)
def _probe_there(setting: str | None, gpu: int | None) -> P.Capability:
    _pin_gpu(gpu)
    P.forget()   # a worker process may serve several sessions: ask afresh
    return P.probe(setting, "cuda")


@ray.remote(num_cpus=1, num_gpus=0, max_retries=0)
def _profile_there(req: ProfileRequest, gpu: int | None) -> ProfileReply:
    _pin_gpu(gpu)
    return profile_here(req)


class RemoteProfiler:
    """A `Profiler` on the node `node_id` (the device actor's), for its GPU `gpu`."""

    def __init__(self, node_id: str | None, gpu: int | None, setting: str | None = None, host: str = ""):
        self.node_id, self.gpu, self.setting, self.host = node_id, gpu, setting, host
        self._cap: P.Capability | None = None

    def _options(self) -> dict[str, Any]:
        return {"scheduling_strategy": NodeAffinitySchedulingStrategy(self.node_id, soft=False)} if self.node_id else {}

    def _where(self) -> str:
        return f"on {self.host or 'the device node'}" + (f" (GPU {self.gpu})" if self.gpu is not None else "")

    def probe(self) -> P.Capability:
        if self._cap is None:
            cap = ray.get(_probe_there.options(**self._options()).remote(self.setting, self.gpu))
            self._cap = cap if cap.ok else P.Capability(cap.state, f"{self._where()}: {cap.message}", cap.ncu,
                                                        cap.version)
        return self._cap

    def profile(self, req: ProfileRequest) -> ProfileReply:
        reply: ProfileReply = ray.get(_profile_there.options(**self._options()).remote(req, self.gpu))
        if reply.state != "ok":
            reply.message = f"{self._where()}: {reply.message}"
        return reply
