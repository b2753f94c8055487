"""A `Device` whose backend lives in a Ray actor, on this machine or on a GPU node of a cluster.

The actor runs the one serving loop (`runtime/serve.py`) around the same `LocalDevice` as the
local device worker, and the engine holds the one `DeviceClient`, here over `RayActor`: only
compiled artifacts and a run's arrays travel to it, never the project (PTX is portable, so
compilation stays on the user's machine). A run's arrays travel by value, through the object
store, once per run. Requests go in with `submit`; what the loop sends back (timing batches, the
outputs at the checkpoint, the answers) the client collects with `poll` calls that wait up to
`POLL_S` each, so timings arrive as the device flushes them (every 50 ms). Polling rather than a
streaming actor method because Ray Client (`ray://`, how a laptop reaches a cluster) does not
carry streaming methods. A dead actor or a lost node is a `WorkerFault`; the next command starts
a new actor and reloads what the old one had loaded, as with the local worker.

Once the actor is ready, the client asks it for a direct connection: the actor listens on its
node's address for one connection, authenticated with a random key that travels through Ray (`channel.py`), and from then
on requests and replies go over that socket, as the local worker's do over its pipe. A Ray actor call costs ~1-2 ms of
Ray's own machinery each way; a message on the socket costs tens of microseconds, so a short run's
round trip is no longer Ray's. Where the node's address cannot be reached from this machine within
`CONNECT_S` (a cluster behind NAT, reached through `ray://`), or QDEXPLORER_RAY_DIRECT=0, everything
stays on actor calls as above.
"""
from __future__ import annotations

import dataclasses
import os
import queue
import socket
import threading
import time
from typing import Any

import numpy as np
import ray
from ray.exceptions import GetTimeoutError, RayActorError, RayTaskError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..runtime.client import DeviceClient, TransportGone
from ..runtime.device import LocalDevice
from ..runtime.faults import Fault, WorkerFault
from ..runtime.messages import CheckpointMsg, ExitMsg, Failed, Faulted, Ok, Ready, Reply, Request, RunMsg
from ..runtime.serve import Inbox, serve_forever
from ..runtime.worker import read_requests
from .channel import Channel
from ..numbers import NumberError, env_number
from ..version import __version__
from .gpus import device_label, node_gpus

POLL_S = 0.05   # the longest a poll waits inside the actor for something to report
LINGER_S = 0.002  # after a reply that ends nothing, how long a poll waits for the next one
_LAST = (Ok, Failed, Faulted, Ready)  # replies after which nothing follows unasked
GPU_SHARE_ENV = "QDEXPLORER_RAY_GPU_SHARE"   # the fraction of a GPU each CUDA device actor asks Ray for


def gpu_share() -> float:
    """What a CUDA device actor asks Ray for: one GPU, or the fraction QDEXPLORER_RAY_GPU_SHARE
    names (0.5: two actors share each GPU, as on a one-GPU machine where a benchmark or a user
    compares two devices side by side; Ray then gives them the same GPU)."""
    try:
        return float(env_number(GPU_SHARE_ENV))   # the one rule for QDEXPLORER_* numbers (numbers.py)
    except NumberError as e:
        raise ValueError(str(e)) from None


CONNECT_S = 1.0   # how long the client tries to reach the actor's direct socket before staying on Ray calls
ACCEPT_S = 30.0   # how long the actor waits for that connection
# A run's arrays this large go through Ray's object store even with a direct connection: its memory
# is mapped once and reused, where each message on the socket is received into fresh memory (64 MB:
# 262 ms a run over the socket, 218 through the store, on the 2-core VM); their replies come back
# over the connection all the same
BIG_RUN_BYTES = 8 << 20


class DeviceActor:
    """One backend (one GPU with num_gpus=1, or a share of one: `gpu_share`) behind Ray, served on a thread of its own; never
    imports the user's project.

    `gpu` pins a GPU by its nvidia-smi index instead of the one Ray assigned (the window's and
    `--device HOST:GPU`'s choice); CUDA then counts GPUs in PCI-bus order, as nvidia-smi does."""

    def __init__(self, backend: str, opts: dict[str, Any], gpu: int | None = None):
        if backend == "cuda":
            os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"   # before CUDA starts: indices as nvidia-smi's
            if gpu is not None:
                os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
        assigned = [int(g) for g in ray.get_gpu_ids()]
        self.gpu = gpu if gpu is not None else (assigned[0] if backend == "cuda" and assigned else None)
        self.inbox = Inbox()
        self.outbox: queue.SimpleQueue[Reply] = queue.SimpleQueue()
        self.conn: Channel | None = None   # the client's direct connection, once it has one
        self.thread = threading.Thread(target=self._serve, args=(backend, opts), name="qdexplorer-ray-device",
                                       daemon=True)
        self.thread.start()

    def _serve(self, backend: str, opts: dict[str, Any]) -> None:
        if serve_forever(lambda: LocalDevice(backend, **opts), self.inbox, self._reply, self._describe):
            deadline = time.monotonic() + 2.0   # let a poll carry the Faulted answer out, then go
            while not self.outbox.empty() and time.monotonic() < deadline:
                time.sleep(0.01)
            print("qdexplorer device actor: sticky fault; exiting", flush=True)
            time.sleep(0.2)
            os._exit(3)   # a poisoned CUDA context: this process must go (the client sees the actor die)

    def _reply(self, reply: Reply) -> None:
        conn = self.conn
        if conn is None:   # serialised later, by a poll's return, while the run goes on changing its arrays
            if isinstance(reply, CheckpointMsg) and reply.arrays:
                reply = CheckpointMsg({k: v.copy() for k, v in reply.arrays.items()})
            self.outbox.put(reply)
            return
        try:
            conn.send(reply)
        except OSError:
            pass   # the client is gone; the request reader sees it and ends the loop

    def direct(self, authkey: bytes) -> tuple[str, int]:
        """Listen for the client's direct connection (one, within ACCEPT_S); its address. Asked
        once, after Ready and before any request, so no reply is in flight when replies move to it."""
        server = socket.create_server((ray.util.get_node_ip_address(), 0))
        server.settimeout(ACCEPT_S)
        threading.Thread(target=self._accept, args=(server, authkey), name="qdexplorer-ray-direct",
                         daemon=True).start()
        host, port = server.getsockname()[:2]
        return host, port

    def _accept(self, server: socket.socket, authkey: bytes) -> None:
        try:
            with server:
                conn = Channel.accept(server, authkey)   # refuses a peer without the key
        except Exception:  # noqa: BLE001 - no client came, or not ours: replies stay on polls
            return
        self.conn = conn
        read_requests(conn, self.inbox)   # as the local worker reads its pipe, until it closes

    def _describe(self, dev: LocalDevice) -> dict[str, Any]:
        host = os.uname().nodename
        out = dev.info() | {"node": ray.get_runtime_context().get_node_id(), "host": host, "gpu": self.gpu,
                            "pid": os.getpid(), "qdexplorer": __version__}
        smi = next((r for r in node_gpus() if r["index"] == self.gpu), None) if self.gpu is not None else None
        if smi is not None:
            out |= {"driver": smi["driver"], "memory_gb": smi["memory_gb"]}
        name = str(out.get("device")) if dev.backend_name == "cuda" else "CPU"
        out["label"] = device_label(name, host, self.gpu)
        return out

    def submit(self, msg: Request, arrays: dict[str, np.ndarray] | None = None, wait_s: float = 0.0) -> list[Reply]:
        """`arrays`: a run's, apart from its message (Ray passes small ones inline, puts large ones
        in the object store and resolves them here). Answers with a `poll(wait_s)`: a short run's
        whole stream, or a load's Ok, comes back in the same round trip as the request."""
        if arrays is not None and isinstance(msg, RunMsg):
            msg = dataclasses.replace(msg, arrays=arrays)
        self.inbox.put(msg)
        return self.poll(wait_s) if wait_s > 0 else []

    def poll(self, wait_s: float = POLL_S) -> list[Reply]:
        """Everything the loop sent since the last poll, waiting up to `wait_s` for the first, and
        up to LINGER_S more for what follows it straight away (a run's last timing batch, its
        checkpoint and its end come within microseconds: one round trip, not three)."""
        try:
            out = [self.outbox.get(timeout=wait_s)]
        except queue.Empty:
            return []
        while not isinstance(out[-1], _LAST):
            try:
                out.append(self.outbox.get(timeout=LINGER_S))
            except queue.Empty:
                break
        while True:
            try:
                out.append(self.outbox.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self.inbox.put(ExitMsg())
        self.thread.join(10)


_Actor = ray.remote(DeviceActor)


class RayActor:
    """A `Transport` to a `DeviceActor`: requests are `submit` calls, replies come from `poll`s."""
    noun = "device actor"
    shares_memory = False

    def __init__(self, backend: str, timeout: float, node_id: str | None, opts: dict[str, Any], gpu: int | None):
        self.backend, self.timeout, self.node_id, self.opts, self.gpu = backend, timeout, node_id, opts, gpu
        self._actor: Any = None
        self._replies: list[Reply] = []
        self._poll: Any = None   # the poll in flight, if its answer has not come yet
        self.conn: Channel | None = None   # the direct connection to the actor, where it could be made

    def describe(self) -> dict[str, Any]:
        """What the client adds to the device's info: whether runs bypass Ray's calls (milliseconds a run)."""
        return {"direct_connection": self.conn is not None}

    def _options(self) -> dict[str, Any]:
        # a `poll` waits on one of its threads; `submit` (a halt among them) answers on the others
        o: dict[str, Any] = {"num_gpus": gpu_share() if self.backend == "cuda" else 0, "num_cpus": 1,
                             "max_restarts": 0, "max_concurrency": 3}
        if self.node_id:
            o["scheduling_strategy"] = NodeAffinitySchedulingStrategy(self.node_id, soft=False)
        return o

    def open(self) -> dict[str, Any]:
        self._actor = _Actor.options(**self._options()).remote(self.backend, self.opts, self.gpu)
        self._replies, self._poll = [], None
        try:
            reply = self.recv(max(120.0, self.timeout))
        except TransportGone as g:
            reply = Failed(str(g))
        if not isinstance(reply, Ready):
            self.kill()
            wait = max(120.0, self.timeout)
            needs = f"{gpu_share():g} GPU" if self.backend == "cuda" else "1 CPU"
            placed = (f"no node gave it a place within {wait:g} s (it needs {needs}"
                      f"{' on node ' + self.node_id[:12] if self.node_id else ''}, and the cluster's are taken)")
            why = reply.error if isinstance(reply, Failed) else placed if reply is None else repr(reply)
            raise WorkerFault(Fault("", "died", f"the {self.backend} device actor failed to start: {why}"))
        host, node = reply.info.get("host"), str(reply.info.get("node") or "")
        self.noun = f"device actor on node {host or '?'}" + (f" ({node[:12]})" if node else "")   # named in faults
        self.conn = self._connect_direct()
        return reply.info

    def _connect_direct(self) -> Channel | None:
        """The direct connection to the actor, or None (its node unreachable from here: Ray calls)."""
        if os.environ.get("QDEXPLORER_RAY_DIRECT") == "0":
            return None
        key = os.urandom(32)
        try:
            host, port = ray.get(self._actor.direct.remote(key), timeout=self.timeout)
            return Channel.connect((host, port), key, CONNECT_S, reuse=True)   # the client copies what it receives
        except Exception:  # noqa: BLE001 - unreachable, refused, or an actor without it: Ray calls serve
            return None

    def is_open(self) -> bool:
        return self._actor is not None

    def send(self, msg: Request) -> None:
        if self._actor is None:
            raise TransportGone("not running")
        arrays = None
        if isinstance(msg, RunMsg) and isinstance(msg.arrays, dict):   # by value, once per run
            arrays = msg.arrays
        big = arrays is not None and sum(getattr(v, "nbytes", 0) for v in arrays.values()) >= BIG_RUN_BYTES
        if self.conn is not None and not big:   # a run's arrays go with it
            try:
                self.conn.send(msg)
                return
            except OSError as e:
                raise TransportGone(f"its connection closed ({e or type(e).__name__})") from None
        if isinstance(msg, RunMsg) and arrays is not None:
            msg = dataclasses.replace(msg, arrays={})
        payload: Any = arrays
        try:
            if big:   # through the object store, as Ray advises: a task spec that carries the arrays by
                payload = ray.put(arrays)   # value is slow through Ray Client (and warns past 10 MB)
        except Exception as e:  # noqa: BLE001 - the store full or the cluster gone: the run's fault
            raise TransportGone(_reason(e)) from None
        try:   # in order: each waits for the last; the first replies come back with it (over the direct
            # connection, where there is one: then this only hands the run to the actor)
            wait = 0.0 if self.conn is not None else POLL_S
            self._replies.extend(ray.get(self._actor.submit.remote(msg, payload, wait), timeout=self.timeout))
        except (RayActorError, RayTaskError, GetTimeoutError) as e:
            raise TransportGone(_reason(e)) from None

    def recv(self, wait: float) -> Reply | None:
        if self.conn is not None and self._actor is not None:
            try:
                if not self.conn.poll(wait):
                    return None
                reply: Reply = self.conn.recv()
                return reply
            except (EOFError, OSError):
                raise TransportGone("its connection closed (the actor exited)") from None
        deadline = time.monotonic() + wait
        while not self._replies:
            if self._actor is None:
                raise TransportGone("not running")
            left = deadline - time.monotonic()
            if left < 0:
                return None
            if self._poll is None:
                self._poll = self._actor.poll.remote(min(left, POLL_S))
            try:   # a poll not answered in time (an actor still starting) is waited on again, never
                   # dropped: its answer holds replies that would be lost with it
                self._replies = ray.get(self._poll, timeout=max(0.05, min(left + POLL_S, self.timeout)))
                self._poll = None
            except GetTimeoutError:   # silence: the client decides when it is a hang, at `wait`
                continue
            except (RayActorError, RayTaskError) as e:
                self._poll = None
                raise TransportGone(_reason(e)) from None
        return self._replies.pop(0)

    def kill(self, grace: float = 0.0) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self._actor is not None:
            try:
                ray.kill(self._actor)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._actor, self._replies = None, []

    def close(self) -> None:
        if self._actor is not None:
            try:
                ray.get(self._actor.close.remote(), timeout=10)
            except Exception:  # noqa: BLE001 - closing a dead actor
                pass
        self.kill()


def actor_device(backend: str = "cpu", timeout: float = 60.0, node_id: str | None = None,
               opts: dict[str, Any] | None = None, gpu: int | None = None) -> DeviceClient:
    """The engine's device for a Ray actor of `backend` (on `node_id`, pinned to `gpu`)."""
    transport = RayActor(backend, timeout, node_id, opts or {}, gpu if backend == "cuda" else None)
    return DeviceClient(transport, backend, timeout, remember_loads=True)


def _reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else type(e).__name__
