"""A `Device` whose backend lives in a Ray actor, on this machine or on a GPU node of a cluster.

The actor runs the same `LocalDevice` code as the local device worker; only compiled artifacts
and a run's arrays travel to it, never the project (PTX is portable, so compilation stays on
the user's machine). A run's arrays go through the object store once per run. The run goes on a
thread inside the actor; the caller collects what it reports (timing batches, the first pass's
outputs at the checkpoint, the outcome) with `poll` calls that wait up to `POLL_S` each, so
timings arrive as the device flushes them (every 50 ms). Polling rather than a streaming actor
method because Ray Client (`ray://`, how a laptop reaches a cluster) does not carry streaming
methods. Stop is a concurrent `halt` call that sets the run's stop flag between launches. A dead
actor or a lost node is a `WorkerFault`; the next command starts a new actor and reloads what the
old one had loaded, exactly as the local worker client does.
"""
from __future__ import annotations

import dataclasses
import os
import queue
import threading
import time
from typing import Any

import numpy as np
import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..runtime.device import LocalDevice
from ..runtime.device_api import LoadItem, LoadResult, RunJob, RunOutcome, RunSink
from ..runtime.faults import DeviceFault, Fault, WorkerFault
from ..runtime.launch import LaunchTiming
from ..version import __version__
from .gpus import device_label, node_gpus

POLL_S = 0.05   # the longest a poll waits inside the actor for something to report


class _QueueSink:
    """Inside the actor: what the device reports goes into a queue that `poll` drains."""

    def __init__(self, q: queue.Queue[tuple[str, Any]], arrays: dict[str, np.ndarray]):
        self.q, self.arrays = q, arrays

    def timings(self, batch: list[LaunchTiming]) -> None:
        self.q.put(("timings", list(batch)))

    def checkpoint(self) -> None:
        self.q.put(("checkpoint", {k: v.copy() for k, v in self.arrays.items()}))


class DeviceActor:
    """One backend (one GPU with num_gpus=1) behind Ray; never imports the user's project.

    `gpu` pins a GPU by its nvidia-smi index instead of the one Ray assigned (the window's and
    `--device HOST:GPU`'s choice); CUDA then counts GPUs in PCI-bus order, as nvidia-smi does."""

    def __init__(self, backend: str, opts: dict[str, Any], gpu: int | None = None):
        if backend == "cuda":
            os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"   # before CUDA starts: indices as nvidia-smi's
            if gpu is not None:
                os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
        assigned = [int(g) for g in ray.get_gpu_ids()]
        self.gpu = gpu if gpu is not None else (assigned[0] if backend == "cuda" and assigned else None)
        self.dev = LocalDevice(backend, **opts)
        self.stop = threading.Event()
        self.q: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.thread: threading.Thread | None = None

    def info(self) -> dict[str, Any]:
        host = os.uname().nodename
        out = self.dev.info() | {"node": ray.get_runtime_context().get_node_id(), "host": host, "gpu": self.gpu,
                                 "pid": os.getpid(), "qdexplorer": __version__}
        smi = next((r for r in node_gpus() if r["index"] == self.gpu), None) if self.gpu is not None else None
        if smi is not None:
            out |= {"driver": smi["driver"], "memory_gb": smi["memory_gb"]}
        name = str(out.get("device")) if self.dev.backend_name == "cuda" else "CPU"
        out["label"] = device_label(name, host, self.gpu)
        return out

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        try:
            self.dev.backend.make_current()   # a threaded actor serves each call on any of its threads
            return self.dev.load(items)
        except DeviceFault as f:
            self._die(f)
            raise

    def unload(self, tasks: list[str]) -> None:
        self.dev.backend.make_current()
        self.dev.unload(tasks)

    def loaded_tasks(self) -> list[str]:
        return self.dev.loaded_tasks()

    def halt(self) -> None:
        self.stop.set()

    def ping(self) -> int:
        return os.getpid()

    def start(self, job: RunJob, arrays: dict[str, np.ndarray], scalars: dict[str, Any]) -> None:
        """Begin a run on a thread of its own; `poll` hands out what it reports."""
        if self.thread is not None and self.thread.is_alive():
            raise RuntimeError("the device actor is already running a job")
        self.stop.clear()
        self.q = q = queue.Queue[tuple[str, Any]]()
        own = {k: np.array(v, copy=True) for k, v in arrays.items()}   # the store's arrays are read-only

        def work() -> None:
            try:
                self.dev.backend.make_current()
                q.put(("done", self.dev.run(job, dict(scalars) | own, _QueueSink(q, own), self.stop)))
            except DeviceFault as f:
                self._die(f)
            except Exception as e:  # noqa: BLE001 - handed to the caller as the run's error
                q.put(("error", f"{type(e).__name__}: {e}"))
        self.thread = threading.Thread(target=work, name="qdexplorer-ray-run", daemon=True)
        self.thread.start()

    def poll(self, wait_s: float = POLL_S) -> list[tuple[str, Any]]:
        """Everything reported since the last poll, waiting up to `wait_s` for the first item:
        ('timings', [LaunchTiming]), ('checkpoint', {name: array}), and last ('done', RunOutcome)
        or ('error', message)."""
        try:
            out = [self.q.get(timeout=wait_s)]
        except queue.Empty:
            return []
        while True:
            try:
                out.append(self.q.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self.dev.backend.make_current()
        self.dev.close()

    @staticmethod
    def _die(f: DeviceFault) -> None:
        """A poisoned CUDA context: this process must go (the client sees the actor die)."""
        print(f"qdexplorer device actor: sticky fault in {f.task}: {f}", flush=True)
        os._exit(3)


_Actor = ray.remote(DeviceActor)


class RayDevice:
    """The engine-side handle on a `DeviceActor`: the same `Device` signatures as the local ones."""

    def __init__(self, backend: str = "cpu", timeout: float = 60.0, node_id: str | None = None,
                 opts: dict[str, Any] | None = None, gpu: int | None = None):
        self.backend_name, self.timeout, self.node_id, self.opts = backend, timeout, node_id, opts or {}
        self.gpu = gpu if backend == "cuda" else None   # a CPU actor holds no GPU
        self.loaded: dict[str, LoadItem] = {}
        self._results: dict[str, LoadResult] = {}
        self.restarts = 0
        self._actor: Any = None
        self._info: dict[str, Any] = {}

    # -- the actor's life
    def _options(self) -> dict[str, Any]:
        # a `poll` waits on one of its threads; `halt` and `ping` answer on the others
        o: dict[str, Any] = {"num_gpus": 1 if self.backend_name == "cuda" else 0, "num_cpus": 1,
                             "max_restarts": 0, "max_concurrency": 3}
        if self.node_id:
            o["scheduling_strategy"] = NodeAffinitySchedulingStrategy(self.node_id, soft=False)
        return o

    def _ensure(self) -> Any:
        if self._actor is None:
            actor: Any = _Actor.options(**self._options()).remote(self.backend_name, self.opts, self.gpu)
            try:
                self._info = ray.get(actor.info.remote(), timeout=max(120.0, self.timeout))
            except (RayActorError, RayTaskError, GetTimeoutError) as e:
                ray.kill(actor)
                why = (f"no node gave it a place within {max(120.0, self.timeout):g} s (it needs "
                       f"{'1 GPU' if self.backend_name == 'cuda' else '1 CPU'}"
                       f"{' on node ' + self.node_id[:12] if self.node_id else ''}, and the cluster's are taken)"
                       if isinstance(e, GetTimeoutError) else _reason(e))
                raise WorkerFault(Fault("", "died", f"the {self.backend_name} device actor failed to start: "
                                                    f"{why}")) from None
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
            raise self._fault(task, "timeout", f"timed out: the device actor on {self._where()} gave no answer "
                                               f"within {self.timeout:g} s for task {task or '(loading)'} (a hang?); "
                                               f"it was replaced") from None
        except RayActorError as e:
            raise self._fault(task, "died", f"the device actor on {self._where()} died during task "
                                            f"{task or '(loading)'} ({_reason(e)}); the next command starts a new "
                                            f"one") from None

    def _where(self) -> str:
        """The node (host, and Ray's node id) the actor runs on, for messages."""
        host, node = self._info.get("host"), str(self._info.get("node") or self.node_id or "")
        return f"node {host or '?'} ({node[:12]})" if node else f"node {host or '?'}"

    # -- the Device protocol
    def info(self) -> dict[str, Any]:
        self._ensure()
        return self._info

    def load(self, items: list[LoadItem]) -> list[LoadResult]:
        """The engine loads before every run; what the actor already holds, byte for byte and with
        the same launch spec, costs no round trip (on a cluster far away, that is most of a run's start)."""
        actor = self._ensure()
        if items and all(self.loaded.get(it.spec.task) == it and it.spec.task in self._results for it in items):
            return [dataclasses.replace(self._results[it.spec.task], ms=0.0, reused=True) for it in items]
        results: list[LoadResult] = self._call(actor.load.remote(items), task=items[0].spec.task if items else "")
        for it, r in zip(items, results):
            if r.ok:
                self.loaded[it.spec.task], self._results[it.spec.task] = it, r
        return results

    def unload(self, tasks: list[str]) -> None:
        for t in tasks:
            self.loaded.pop(t, None)
            self._results.pop(t, None)
        if self._actor is not None and tasks:
            self._call(self._actor.unload.remote(tasks), task="")

    def loaded_tasks(self) -> list[str]:
        return list(self.loaded)

    def run(self, job: RunJob, args: dict[str, Any], sink: RunSink, stop: threading.Event) -> RunOutcome:
        actor = self._ensure()
        arrays = {k: v for k, v in args.items() if isinstance(v, np.ndarray)}
        scalars = {k: v for k, v in args.items() if k not in arrays}
        task = job.tasks[0] if job.tasks else ""
        self._call(actor.start.remote(job, ray.put(arrays), scalars), task)   # the arrays: once per run
        halted = False
        last = time.monotonic()
        while True:
            if stop.is_set() and not halted:
                actor.halt.remote()
                halted = True
            items = self._call(actor.poll.remote(POLL_S), task)
            if not items:
                if time.monotonic() - last > self.timeout:
                    raise self._fault(task, "timeout", f"timed out: task {task} on {self._where()} gave no sign of "
                                                       f"life for {self.timeout:g} s (a hang?); the device actor "
                                                       f"was replaced")
                continue
            last = time.monotonic()
            for kind, payload in items:
                if kind == "timings":
                    order = job.tasks
                    task = order[(order.index(payload[-1].task) + 1) % len(order)]  # a hang is the next one
                    sink.timings(payload)
                elif kind == "checkpoint":
                    for k, v in payload.items():
                        args[k][...] = v
                    sink.checkpoint()
                elif kind == "error":
                    raise RuntimeError(payload)
                elif kind == "done":
                    outcome: RunOutcome = payload
                    return outcome

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
