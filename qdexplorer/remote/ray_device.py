"""A `Device` whose backend lives in a Ray actor, on this machine or on a GPU node of a cluster.

The actor runs the same `LocalDevice` code as the local device worker; only compiled artifacts
and a run's arrays travel to it, never the project (PTX is portable, so compilation stays on
the user's machine). A run's arrays go through the object store once per run. The run itself is
a streaming actor method: timing batches come back as it launches, the first pass's outputs come
back at the checkpoint, and Stop is a second, concurrent actor call that sets the run's stop
flag between launches. A dead actor or a lost node is a `WorkerFault`; the next command starts a
new actor and reloads what the old one had loaded, exactly as the local worker client does.
"""
from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..runtime.device import LocalDevice
from ..runtime.device_api import LoadItem, LoadResult, RunJob, RunOutcome, RunSink
from ..runtime.faults import DeviceFault, Fault, WorkerFault
from ..runtime.launch import LaunchTiming

STREAM_POLL_S = 0.05


class _QueueSink:
    """Inside the actor: what the device reports goes into a queue the streaming method drains."""

    def __init__(self, q: queue.Queue, arrays: dict[str, np.ndarray]):
        self.q, self.arrays = q, arrays

    def timings(self, batch: list[LaunchTiming]) -> None:
        self.q.put(("timings", list(batch)))

    def checkpoint(self) -> None:
        self.q.put(("checkpoint", {k: v.copy() for k, v in self.arrays.items()}))


@ray.remote(max_concurrency=2)   # a run streams on one thread; `halt` and `ping` answer on the other
class DeviceActor:
    """One backend (one GPU with num_gpus=1) behind Ray; never imports the user's project."""

    def __init__(self, backend: str, opts: dict[str, Any]):
        self.dev = LocalDevice(backend, **opts)
        self.stop = threading.Event()

    def info(self) -> dict[str, Any]:
        gpus = ray.get_gpu_ids()
        return self.dev.info() | {"node": ray.get_runtime_context().get_node_id(), "host": os.uname().nodename,
                                  "gpu_ids": [str(g) for g in gpus], "pid": os.getpid()}

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        try:
            return self.dev.load(items)
        except DeviceFault as f:
            self._die(f)
            raise

    def unload(self, tasks: list[str]) -> None:
        self.dev.unload(tasks)

    def loaded_tasks(self) -> list[str]:
        return self.dev.loaded_tasks()

    def halt(self) -> None:
        self.stop.set()

    def ping(self) -> int:
        return os.getpid()

    def run(self, job: RunJob, arrays: dict[str, np.ndarray], scalars: dict[str, Any]) -> Iterator[tuple[str, Any]]:
        """Yields ('timings', [LaunchTiming]), ('checkpoint', {name: array}) and last ('done', RunOutcome)."""
        self.stop.clear()
        own = {k: np.array(v, copy=True) for k, v in arrays.items()}   # the store's arrays are read-only
        q: queue.Queue = queue.Queue()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["out"] = self.dev.run(job, dict(scalars) | own, _QueueSink(q, own), self.stop)
            except BaseException as e:  # noqa: BLE001 - handed to the caller below
                box["error"] = e
            q.put(("end", None))
        t = threading.Thread(target=work, name="qdexplorer-ray-run", daemon=True)
        t.start()
        while True:
            kind, payload = q.get()
            if kind == "end":
                break
            yield kind, payload
        t.join()
        err = box.get("error")
        if isinstance(err, DeviceFault):
            self._die(err)
        if err is not None:
            raise err
        yield "done", box["out"]

    def close(self) -> None:
        self.dev.close()

    @staticmethod
    def _die(f: DeviceFault) -> None:
        """A poisoned CUDA context: this process must go (the client sees the actor die)."""
        print(f"qdexplorer device actor: sticky fault in {f.task}: {f}", flush=True)
        os._exit(3)


class RayDevice:
    """The engine-side handle on a `DeviceActor`: the same `Device` signatures as the local ones."""

    def __init__(self, backend: str = "cpu", timeout: float = 60.0, node_id: str | None = None,
                 opts: dict[str, Any] | None = None):
        self.backend_name, self.timeout, self.node_id, self.opts = backend, timeout, node_id, opts or {}
        self.loaded: dict[str, LoadItem] = {}
        self.restarts = 0
        self._actor: Any = None
        self._info: dict[str, Any] = {}

    # -- the actor's life
    def _options(self) -> dict[str, Any]:
        o: dict[str, Any] = {"num_gpus": 1 if self.backend_name == "cuda" else 0, "num_cpus": 1,
                             "max_restarts": 0}
        if self.node_id:
            o["scheduling_strategy"] = NodeAffinitySchedulingStrategy(self.node_id, soft=False)
        return o

    def _ensure(self) -> Any:
        if self._actor is None:
            actor = DeviceActor.options(**self._options()).remote(self.backend_name, self.opts)
            try:
                self._info = ray.get(actor.info.remote(), timeout=max(120.0, self.timeout))
            except (RayActorError, RayTaskError, GetTimeoutError) as e:
                ray.kill(actor)
                raise WorkerFault(Fault("", "died", f"the {self.backend_name} device actor failed to start: "
                                                    f"{_reason(e)}")) from None
            self._actor = actor
            if self.loaded:   # a new actor gets back what the old one had loaded
                self._call(actor.load.remote(list(self.loaded.values())), task="")
        return self._actor

    def _fault(self, task: str, kind: str, message: str) -> WorkerFault:
        if self._actor is not None:
            try:
                ray.kill(self._actor)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._actor = None
        self.restarts += 1
        return WorkerFault(Fault(task, kind, message))

    def _call(self, ref: Any, task: str) -> Any:
        try:
            return ray.get(ref, timeout=self.timeout)
        except GetTimeoutError:
            raise self._fault(task, "timeout", f"timed out: the device actor gave no answer within "
                                               f"{self.timeout:g} s (a hang?); it was replaced") from None
        except RayActorError as e:
            raise self._fault(task, "died", f"the device actor died ({_reason(e)}); the next command "
                                            f"starts a new one") from None

    # -- the Device protocol
    def info(self) -> dict[str, Any]:
        self._ensure()
        return self._info

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        actor = self._ensure()
        results: list[LoadResult] = self._call(actor.load.remote(items), task=items[0].spec.task if items else "")
        for it, r in zip(items, results):
            if r.ok:
                self.loaded[it.spec.task] = it
        return results

    def unload(self, tasks: list[str]) -> None:
        for t in tasks:
            self.loaded.pop(t, None)
        if self._actor is not None and tasks:
            self._call(self._actor.unload.remote(tasks), task="")

    def loaded_tasks(self) -> list[str]:
        return list(self.loaded)

    def run(self, job: RunJob, args: dict[str, Any], sink: RunSink, stop: threading.Event) -> RunOutcome:
        actor = self._ensure()
        arrays = {k: v for k, v in args.items() if isinstance(v, np.ndarray)}
        scalars = {k: v for k, v in args.items() if k not in arrays}
        ref = ray.put(arrays)   # once per run, whatever the number of launches
        gen = actor.run.options(num_returns="streaming").remote(job, ref, scalars)
        task = job.tasks[0] if job.tasks else ""
        halted = False
        last = time.monotonic()
        try:
            while True:
                if stop.is_set() and not halted:
                    actor.halt.remote()
                    halted = True
                ready, _ = ray.wait([gen], timeout=STREAM_POLL_S)
                if not ready:
                    if time.monotonic() - last > self.timeout:
                        raise self._fault(task, "timeout", f"timed out: a launch gave no sign of life for "
                                                           f"{self.timeout:g} s (a hang?); the device actor was "
                                                           f"replaced")
                    continue
                try:
                    kind, payload = ray.get(next(gen))
                except StopIteration:
                    raise self._fault(task, "died", "the device actor ended the run without an outcome") from None
                last = time.monotonic()
                if kind == "timings":
                    order = job.tasks
                    task = order[(order.index(payload[-1].task) + 1) % len(order)]  # a hang is the next one
                    sink.timings(payload)
                elif kind == "checkpoint":
                    for k, v in payload.items():
                        args[k][...] = v
                    sink.checkpoint()
                elif kind == "done":
                    outcome: RunOutcome = payload
                    return outcome
        except RayActorError as e:
            raise self._fault(task, "died", f"the device actor died during the run ({_reason(e)}); the next "
                                            f"command starts a new one") from None
        except RayTaskError as e:
            cause = e.as_instanceof_cause() if hasattr(e, "as_instanceof_cause") else e
            raise RuntimeError(str(cause)) from None

    def close(self) -> None:
        if self._actor is not None:
            try:
                ray.get(self._actor.close.remote(), timeout=10)
            except Exception:  # noqa: BLE001 - closing a dead actor
                pass
            ray.kill(self._actor)
            self._actor = None


def _reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else type(e).__name__
