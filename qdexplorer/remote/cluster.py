"""Which Ray cluster runs the tasks, its nodes and GPUs, and which of them a `--device` names.

`--cluster` takes `ray://host:10001` (a remote cluster's client port), `auto` (the cluster that
`RAY_ADDRESS` or a local `ray start` gives) or `local` (a private cluster started for this
process, which Ray 2.60 starts with token authentication on). Ray's token authentication stays
on: for a remote cluster the token is the user's own (`~/.ray/auth_token`, `RAY_AUTH_TOKEN` or
`RAY_AUTH_TOKEN_PATH`), sent only when the user sets `RAY_AUTH_MODE=token` (Ray never sends it to
an explicit address on its own, and neither do we: a mistyped address must not receive it). On a cluster
this process did not start, the actors run this very qdexplorer: its package travels once as a
Ray `py_modules` entry (the nodes need only its dependencies), so the two sides never disagree.
"""
from __future__ import annotations

import importlib
import os
import re
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..ir.errors import QdError
from ..numbers import env_number
from . import local_cluster
from .gpus import RemoteGpu, node_gpus

_connected: list[str] = []
_PACKAGE = Path(__file__).resolve().parent.parent   # qdexplorer/, shipped to clusters we did not start
_NOT_SHIPPED = ["__pycache__/", "*.pyc"]


def _token_available() -> bool:
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    return bool(os.environ.get("RAY_AUTH_TOKEN")) or (Path(path) if path else Path.home() / ".ray" /
                                                       "auth_token").is_file()


def connect(address: str) -> None:
    """Join the cluster at `address` once per process (a second, different address is refused)."""
    if not (address in ("local", "auto") or address.startswith("ray://")):
        raise QdError(f"--cluster {address!r}: expected ray://HOST:PORT, auto, or local")
    if ray.is_initialized():
        if _connected and _connected[0] != address:
            raise QdError(f"already connected to the Ray cluster {_connected[0]!r}; one cluster per process")
        return
    kw: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    connect_timeout()                       # the environment's numbers: refused before anything starts
    env_number("QDEXPLORER_OBJECT_STORE_MB")
    if address.startswith("ray://"):
        probe_address(address)   # a closed port or an unknown host: said at once, no token sent
    previous = signal.getsignal(signal.SIGTERM)
    local_cluster.quiet_sigterm_note()
    raylet_errors_to_stderr()
    try:
        if address == "local":
            cpus = max(2, os.cpu_count() or 2)
            private = local_cluster.start(cpus, **kw)
            print(private.describe(cpus, gpu_count()), file=sys.stderr)
        else:
            target = resolve_auto() if address == "auto" else address
            local_cluster.forget_token()   # else the token of a cluster this process has left is sent
            ray.init(address=target, runtime_env={"py_modules": [str(_PACKAGE)], "excludes": _NOT_SHIPPED}, **kw)
    except SystemExit as e:   # SIGTERM during ray.init meets Ray's handler (sys.exit(15)): the CLI's instead
        if e.code == signal.SIGTERM:
            raise KeyboardInterrupt(signal.SIGTERM) from None
        raise
    except QdError:     # ours (a bad setting, a refused folder): said as it is, not as Ray's
        raise
    except Exception as e:  # noqa: BLE001 - Ray's own errors (unreachable, refused token, versions) say why
        raise QdError(f"--cluster {address}: cannot use the Ray cluster ({type(e).__name__}: {_first_line(e)}); "
                      + _hint()) from None
    finally:   # ray.init makes SIGTERM a bare sys.exit(15): the command's own handler saves first
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)
    _connected[:] = [address]


def raylet_errors_to_stderr() -> None:
    """Ray's driver prints the errors its raylet publishes ("A worker died or was killed while
    executing a task…", when a device actor's process is killed) on stdout, whatever `log_to_driver`
    says: into the JSON of `sweep --json`. Here they go to stderr, where the command's own words
    about the loss are (idempotent; Ray looks the printer up by name at each message)."""
    worker: Any = importlib.import_module("ray._private.worker")
    printer = worker.print_to_stdstream
    if getattr(printer, "qdexplorer_stderr", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        printer(dict(data, is_err=True), ignore_prefix)
    setattr(to_stderr, "qdexplorer_stderr", True)
    worker.print_to_stdstream = to_stderr


PRIVATE_MARK = "/qdxray-"   # in the temp and session folders of every process of a `--cluster local`


def _raylets() -> list[tuple[str, bool]]:
    """(GCS address, is a private cluster of a qdexplorer command) of each raylet on this machine."""
    import psutil
    from ray._private.services import _is_raylet_process
    out = []
    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmdline = proc.info["cmdline"]
        except (psutil.AccessDenied, psutil.NoSuchProcess):
            continue
        if not _is_raylet_process(cmdline):
            continue
        args = [a for part in cmdline for a in part.split(" ")]
        gcs = next((a.split("=", 1)[1] for a in args if a.startswith("--gcs-address=")), "")
        if gcs and gcs != "None":
            out.append((gcs, any(PRIVATE_MARK in a for a in args)))
    return out


def resolve_auto() -> str:
    """What `--cluster auto` joins: RAY_ADDRESS, else the cluster of a `ray start` on this machine,
    never a private cluster of another qdexplorer command (Ray's own "auto" takes any raylet it
    finds, and then waited 26-200 s on a token it could not have). QdError when there is none."""
    env = os.environ.get("RAY_ADDRESS", "").strip()
    if env and env != "auto":
        return env
    from ray._private.utils import read_ray_address
    found = _raylets()
    private = {g for g, p in found if p}
    usable = [g for g, p in found if not p]
    started = read_ray_address(None)   # the last `ray start` on this machine
    if started and started not in private and (started in usable or not found):
        return started
    if usable:
        return usable[0]
    skipped = (f"; {len(private)} private cluster(s) of other qdexplorer commands were left alone (they "
               f"belong to those commands)" if private else "")
    raise QdError(f"--cluster auto: no Ray cluster to join on this machine (RAY_ADDRESS is unset and no "
                  f"`ray start` cluster runs{skipped}); start one with `ray start --head`, give its address "
                  f"(ray://HOST:10001), or use --cluster local")


def connected() -> bool:
    """This process joined a cluster (and has not left it)."""
    return bool(_connected)


def disconnect() -> None:
    """Leave the cluster (a private local one ends, its processes and folder with it)."""
    if _connected[:1] == ["local"]:
        local_cluster.stop()
    else:
        ray.shutdown()
    _connected.clear()


def connect_timeout() -> float:
    """QDEXPLORER_CONNECT_TIMEOUT (seconds, default 10), checked as every number is (numbers.py)."""
    return float(env_number("QDEXPLORER_CONNECT_TIMEOUT"))


def probe_address(address: str, timeout: float | None = None) -> None:
    """A TCP connection, then a gRPC channel (what Ray Client speaks), to a `ray://HOST:PORT` before
    Ray tries (Ray Client retries an unreachable address for about 36 s, then blames the token):
    QdError with the address, what was tried and how long it took, when nothing answers within
    `timeout` seconds in all. No token is sent by either."""
    timeout = connect_timeout() if timeout is None else timeout
    hostport = address[len("ray://"):].rstrip("/")
    host, sep, port_text = hostport.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise QdError(f"--cluster {address!r}: expected ray://HOST:PORT with a port from 1 to 65535 "
                      f"(a cluster's client port is usually 10001)")
    t0 = time.monotonic()
    tried = "a TCP connection"
    try:
        with socket.create_connection((host, int(port_text)), timeout=timeout):
            pass
        tried = "a TCP connection (accepted), then a Ray Client ping"
        why = _grpc_ready(f"{host}:{port_text}" if ":" not in host else f"[{host}]:{port_text}",
                          max(0.5, timeout - (time.monotonic() - t0)))
        if why is None:
            return
    except socket.gaierror as e:
        why = f"the host name {host!r} does not resolve ({e.strerror or e})"
    except socket.timeout:
        why = f"no answer from {host}:{port_text}"
    except OSError as e:
        why = f"{host}:{port_text}: {e.strerror or e}"
    took = time.monotonic() - t0
    raise QdError(f"--cluster {address}: cannot reach the cluster: tried {tried} to {host}:{port_text} "
                  f"for {took:.1f} s (limit {timeout:g} s): {why}. Check the address (the client port is "
                  f"usually 10001), that the cluster runs, and that no firewall is in between; nothing was sent")


def _grpc_ready(target: str, timeout: float) -> str | None:
    """None when a Ray Client server answers a ping at `target` within `timeout` (or answers that it
    wants a token: then the token hint is the message), else why not."""
    import grpc
    ray_client_pb2: Any = importlib.import_module("ray.core.generated.ray_client_pb2")   # generated, untyped
    ray_client_pb2_grpc: Any = importlib.import_module("ray.core.generated.ray_client_pb2_grpc")
    t0 = time.monotonic()
    channel = grpc.insecure_channel(target)
    try:
        grpc.channel_ready_future(channel).result(timeout=timeout)
        stub = ray_client_pb2_grpc.RayletDriverStub(channel)
        stub.ClusterInfo(ray_client_pb2.ClusterInfoRequest(type=ray_client_pb2.ClusterInfoType.PING),
                         timeout=max(0.5, timeout - (time.monotonic() - t0)))
        return None
    except grpc.FutureTimeoutError:
        return f"no gRPC server (a Ray Client port speaks gRPC) answered within {timeout:.1f} s"
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.UNAUTHENTICATED:
            return None   # a Ray cluster that wants a token: ray.init says so, with the token hint
        return (f"something answered but not as a Ray Client server ({e.code().name}): is it the cluster's "
                f"client port (ray start --ray-client-server-port, usually 10001)")
    finally:
        channel.close()


def _hint() -> str:
    """What to check: a cluster with token authentication never answers a client that sends no
    token (Ray reports a timeout), and Ray sends one to an explicit address only in token mode."""
    if os.environ.get("RAY_AUTH_MODE", "").lower() != "token":
        return ("if the cluster uses token authentication, `export RAY_AUTH_MODE=token` with its token in "
                "~/.ray/auth_token or RAY_AUTH_TOKEN (docs/remote.md); else start one with `ray start --head`, "
                "or name its client address as ray://HOST:10001")
    if not _token_available():
        return "RAY_AUTH_MODE=token, but no token: put the cluster's token in ~/.ray/auth_token (docs/remote.md)"
    return ("check the address (ray://HOST:10001 is the client port), that the port is open, and that your "
            "token is the cluster's (docs/remote.md)")


def _first_line(e: BaseException) -> str:
    lines = str(e).strip().splitlines()
    return lines[0][:300] if lines else type(e).__name__


@dataclass(frozen=True)
class Node:
    node_id: str
    host: str
    address: str
    cpus: float
    gpus: float          # what Ray counts on the node (its GPU resource)


def nodes() -> list[Node]:
    """The cluster's live nodes, head first as Ray lists them."""
    return [Node(n["NodeID"], n.get("NodeManagerHostname") or n["NodeManagerAddress"], n["NodeManagerAddress"],
                 float(n["Resources"].get("CPU", 0.0)), float(n["Resources"].get("GPU", 0.0)))
            for n in ray.nodes() if n.get("Alive")]


def _probe() -> list[dict[str, Any]]:
    return node_gpus()


def devices() -> list[RemoteGpu]:
    """Every GPU of every live node, in node order (asked of all nodes at once); a node without
    GPUs lists none."""
    probe = ray.remote(num_cpus=0, num_gpus=0)(_probe)
    live = nodes()
    refs = [probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n.node_id, soft=False)).remote()
            for n in live]
    out = []
    for n, rows in zip(live, ray.get(refs, timeout=60)):
        out += [RemoteGpu(n.node_id, n.host, **r) for r in rows]
    return out


def cpu_slots() -> int:
    """CPU actors (one CPU each) the cluster can hold at once: its CPUs."""
    return int(ray.cluster_resources().get("CPU", 0))


def gpu_count() -> int:
    """GPUs the cluster's scheduler knows of (what `num_gpus=1` actors can take)."""
    return int(ray.cluster_resources().get("GPU", 0))


@dataclass(frozen=True)
class Placement:
    """Where one engine's device actor goes: a node (None: wherever Ray likes), a GPU index on
    it (None: the one Ray assigns), and the SM to compile for when the GPU is known."""
    node_id: str | None = None
    host: str | None = None
    gpu: int | None = None
    sm: str | None = None


_LABEL = re.compile(r"\((?P<host>[^,()]+), GPU (?P<gpu>\d+)\)\s*$")


def parse_device(spec: str) -> tuple[str | None, int | None]:
    """(host or node id, GPU index) from what a user types: `1`, `gpu1`, `HOST`, `HOST:1`, or the
    selector's label "H200 (HOST, GPU 1)"."""
    s = spec.strip()
    m = _LABEL.search(s)
    if m:
        return m["host"].strip(), int(m["gpu"])
    if re.fullmatch(r"(?i)(gpu\s*)?\d+", s):
        return None, int(re.sub(r"\D", "", s))
    host, sep, tail = s.rpartition(":")
    if sep and re.fullmatch(r"(?i)(gpu\s*)?\d+", tail):
        return host or None, int(re.sub(r"\D", "", tail))
    if not s or sep:
        raise QdError(f"--device {spec!r}: expected GPU, HOST, HOST:GPU or a label like 'H200 (node-3, GPU 1)'")
    return s, None


def _node(host: str, live: list[Node]) -> Node:
    found = [n for n in live if host in (n.host, n.address) or (len(host) >= 8 and n.node_id.startswith(host))]
    if len(found) != 1:
        names = ", ".join(n.host for n in live) or "none"
        raise QdError(f"--device: {'no node' if not found else 'more than one node'} is {host!r} "
                      f"(nodes: {names}; a node id prefix of 8+ characters also names one)")
    return found[0]


def place(spec: str | None, backend: str) -> Placement:
    """Resolve a `--device` SPEC on the connected cluster; for CUDA also the SM to compile for
    (that of the named GPU, or the one SM all candidate GPUs share)."""
    host, gpu = parse_device(spec) if spec else (None, None)
    live = nodes()
    node = _node(host, live) if host else None
    if backend != "cuda":
        if gpu is not None:
            raise QdError(f"--device {spec!r}: the {backend} backend runs on a node's CPUs, not on a GPU: "
                          f"name the node only (--device HOST), or use --backend cuda")
        return Placement(node.node_id if node else None, node.host if node else None)
    gpus = [g for g in devices() if node is None or g.node_id == node.node_id]
    if gpu is not None:
        picked = [g for g in gpus if g.index == gpu]
        if not picked:
            raise QdError(f"--device {spec!r}: no GPU {gpu} " + (f"on {node.host}" if node else "on the cluster")
                          + f" (GPUs: {', '.join(g.label for g in gpus) or 'none'})")
        if len(picked) > 1:
            raise QdError(f"--device {spec!r}: GPU {gpu} exists on several nodes "
                          f"({', '.join(g.node for g in picked)}); say which: --device HOST:{gpu}")
        g = picked[0]
        return Placement(g.node_id, g.node, g.index, g.sm)
    if not gpus:
        raise QdError("the cuda backend needs a GPU, and " + (f"node {node.host} has none" if node else
                      "this cluster has none (qdexplorer devices --cluster … lists them); use --backend cpu"))
    sms = {g.sm for g in gpus}
    return Placement(node.node_id if node else None, node.host if node else None, None,
                     sms.pop() if len(sms) == 1 else None)
