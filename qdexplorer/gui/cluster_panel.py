"""The window's Cluster setting, its device selector, and the status bar's "runs on …" line.

The address is remembered in Settings (`run/cluster`, `run/device`): empty is this machine, else
`local`, `auto` or `ray://HOST:10001`, as the CLI's `--cluster`. Joining a cluster and asking
every node for its GPUs block (a refused connect takes about 30 s), so they run on a lane of
their own and the window stays usable; the engine is rebuilt on the engine lane, as File ▸ Open
builds one. Ray is imported only once a cluster is chosen: a window on this machine never loads it.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QComboBox, QLabel

from ..engine import Engine, EngineOptions
from ..events import ProjectOpened, RunStarted, TaskLoaded
from ..optional_parts import ray_hint
from ..remote.gpus import device_label, node_gpus
from .engine_factory import EngineFactory
from .services import WindowServices
from .plumbing.workers import Lane, error_text

THIS_MACHINE = ""
CHOICES = [THIS_MACHINE, "local", "auto"]
_connect_lock = threading.Lock()   # the listing lane and the engine lane may both be first to join


@dataclass(frozen=True)
class Target:
    """One entry of the device selector: where the engine's device actor goes."""
    label: str
    node_id: str | None = None
    gpu: int | None = None
    sm: str | None = None
    backend: str | None = None   # cuda for a GPU, cpu for a node's CPUs, None: the Backend selector's
    busy: bool = False


def join(address: str) -> Any:
    """The cluster module, connected to `address` (Ray is imported here, and only here)."""
    try:
        from ..remote import cluster  # deliberate lazy load: Ray (optional) only when a cluster is asked for
    except ImportError as e:
        raise RuntimeError(f"a cluster needs Ray: {ray_hint()} ({e})") from None
    with _connect_lock:
        cluster.connect(address)
    return cluster


def list_targets(address: str) -> list[Target]:
    """What the selector offers: every GPU of the cluster, then every node's CPUs; on this machine
    its own GPUs (nvidia-smi, no Ray). Blocks: run it on a lane."""
    if not address:
        host = os.uname().nodename
        return [Target("this machine")] + [Target(device_label(r["name"], host, r["index"]), gpu=r["index"],
                                                  sm=r["sm"], backend="cuda", busy=r["busy"]) for r in node_gpus()]
    cluster = join(address)
    gpus = [Target(g.label, g.node_id, g.index, g.sm, "cuda", g.busy) for g in cluster.devices()]
    cpus = [Target(f"CPU ({n.host}, {n.cpus:g} cores)", n.node_id, backend="cpu") for n in cluster.nodes()]
    return [Target("any node (Ray places it)")] + gpus + cpus


def build_engine(path: str, backend: str, address: str, target: Target | None) -> Engine:
    """The project's Engine on `target` of the cluster at `address` (on the engine thread)."""
    if not address:
        return Engine(path, EngineOptions(backend=backend))
    join(address)
    t = target or Target("any")
    return Engine(path, EngineOptions(backend=t.backend or backend, cluster=address, node=t.node_id, gpu=t.gpu,
                                      arch=t.sm))


class ClusterControl(QObject):
    """The Cluster and Device selectors and the "runs on" label, which it hands to the window to lay
    out (`toolbar_widgets`, `where`); it gives the window's engine factory a placement, so that every
    project the window opens runs where the setting says."""

    def __init__(self, services: WindowServices, engines: EngineFactory, parent: QObject | None = None):
        super().__init__(parent)
        self.services, self.engines = services, engines
        self.lane = Lane("qdexplorer-cluster", parent=self)
        self.address = QComboBox()
        self.address.setEditable(True)
        self.address.addItems(CHOICES)
        self.address.lineEdit().setPlaceholderText("this machine")
        self.address.setMinimumContentsLength(14)
        self.address.setToolTip("Where the tasks run: empty = this machine; local = a private Ray cluster here; "
                                "auto = RAY_ADDRESS or a local `ray start`; ray://HOST:10001 = a remote cluster "
                                "(docs/remote.md). Compilation stays on this machine.")
        self.device = QComboBox()
        self.device.setMinimumContentsLength(22)
        self.device.setToolTip("The cluster's GPU (or node) that runs the tasks")
        self.where = QLabel("")
        self.targets: list[Target] = []
        self._said = False
        self._listing = False
        s = services.settings
        self.cluster = s.get("run/cluster", THIS_MACHINE, str) or THIS_MACHINE
        self._wanted_device = s.get("run/device", "", str) or ""
        self.address.setCurrentText(self.cluster)
        # bounded widths: a device label like 'H200 (node-3, GPU 1)' must not push the selector itself
        # into the toolbar's overflow at 1400 px (the long names are in the list and the tooltip)
        self.address.setMaximumWidth(170)
        self.device.setMinimumContentsLength(12)
        self.device.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.toolbar_widgets = [QLabel(" Cluster "), self.address, QLabel(" Device "), self.device]
        engines.place_with(self.placement)
        self.address.lineEdit().editingFinished.connect(lambda: self.set_cluster(self.address.currentText()))
        self.address.activated.connect(lambda _i: self.set_cluster(self.address.currentText()))
        self.device.activated.connect(self._device_chosen)
        services.bridge.event.connect(self._on_event)
        self.refresh(rebuild=bool(self.cluster and self._wanted_device))   # the engine moves to a remembered device once listed

    # ---- the setting
    def placement(self, path: str) -> Callable[[], Engine] | None:
        """The build of `path`'s engine on the chosen cluster and device; None on this machine."""
        if not self.cluster:
            return None
        backend, address, target = self.services.runs.choice().backend, self.cluster, self.target()
        return lambda: build_engine(path, backend, address, target)

    def target(self) -> Target | None:
        i = self.device.currentIndex()
        return self.targets[i] if 0 <= i < len(self.targets) else None

    def set_cluster(self, address: str) -> None:
        """Remember `address` and list its devices; the engine is rebuilt once they are known."""
        address = address.strip()
        if address == self.cluster:
            return
        self.cluster = address
        self.address.setCurrentText(address)
        self.services.settings.set("run/cluster", address)
        self.services.settings.set("run/device", "")
        self._wanted_device = ""
        self.refresh(rebuild=True)

    def refresh(self, rebuild: bool = False) -> None:
        """List the devices of the current setting on the cluster lane (it may take a while)."""
        self.device.clear()
        self.device.addItem("listing devices…" if self.cluster else "this machine")
        self.device.setEnabled(False)
        self._listing = True
        if self.cluster:
            self.services.activity.status(f"joining the Ray cluster {self.cluster}…")
        address = self.cluster
        self.lane.submit(list_targets, address, returned=lambda ts: self._listed(address, ts, rebuild),
                         errored=lambda e: self._list_failed(address, e))

    def _listed(self, address: str, targets: list[Target], rebuild: bool) -> None:
        if address != self.cluster:
            return   # the setting changed while this list was asked for
        self._listing = False
        self.targets = targets
        self.device.clear()
        for i, t in enumerate(targets):
            self.device.addItem(t.label + (" — busy" if t.busy else ""))
            if not address and t.gpu is not None:   # this machine's GPUs: the Backend selector's cuda
                self.device.model().item(i).setEnabled(False)
                self.device.setItemData(i, "the cuda backend runs on this machine's GPU", Qt.ToolTipRole)
        wanted = next((i for i, t in enumerate(targets) if t.label == self._wanted_device), 0)
        self.device.setCurrentIndex(wanted)
        self.device.setEnabled(bool(address))
        if address:
            n_gpu = sum(t.gpu is not None for t in targets)
            self.services.messages.log(f"cluster {address}: {n_gpu} GPU(s), {sum(t.backend == 'cpu' for t in targets)} node(s)")
        self.say_chosen()
        if rebuild:
            self.rebuild()

    def _list_failed(self, address: str, error: Exception) -> None:
        if address != self.cluster:
            return
        self._listing = False
        message = error_text(error)
        self.device.clear()
        self.device.addItem("cluster unavailable")
        self.services.messages.log(f"cluster {address}: {message}")
        self.services.activity.status(message.splitlines()[0])

    def listing(self) -> bool:
        return self._listing

    def _device_chosen(self, _index: int) -> None:
        t = self.target()
        if t is None or not self.cluster:
            return
        self._wanted_device = t.label
        self.services.settings.set("run/device", t.label)
        self.rebuild()

    def rebuild(self) -> None:
        """Build the open project's engine again, on the chosen cluster and device."""
        path = self.services.project.path
        if not path:
            return
        t = self.target()
        if t is not None and t.backend:
            self.services.runs.choose_backend(t.backend)   # Run sets the engine's backend from that selector
        self._said = False
        self.say_chosen()
        self.services.activity.status(f"moving the engine to {self.describe()}…")
        self.services.project.reopen(self.engines(path), errored=lambda e: self._rebuild_failed(e))

    def _rebuild_failed(self, error: Exception) -> None:
        message = error_text(error)
        self.services.messages.log(f"cannot run on {self.describe()}: {message}")
        self.services.activity.status(message.splitlines()[0])

    def describe(self) -> str:
        if not self.cluster:
            return "this machine"
        t = self.target()
        return f"{t.label if t else 'a node'} via {self.cluster}"

    # ---- the status bar
    def say_chosen(self) -> None:
        """"runs on …" as soon as the device is chosen (the cluster's device, or this machine and the
        backend): it was empty until the first run. A run's first loaded task puts in what the device
        itself says (its node and GPU as the cluster placed it)."""
        if self._said:
            return
        if not self.cluster:
            self.where.setText(where_text({"backend": self.services.runs.choice().backend}, None))
            return
        t = self.target()
        self.where.setText(f"runs on {t.label} via {self.cluster}" if t is not None and not self._listing else "")

    def backend_changed(self) -> None:
        """The Backend selector moved: on this machine that is where the next run goes."""
        if not self.cluster:
            self._said = False
            self.say_chosen()

    def _on_event(self, ev: Any) -> None:
        if isinstance(ev, ProjectOpened):
            self.say_chosen()
        elif isinstance(ev, RunStarted):
            self._said = False
        elif isinstance(ev, TaskLoaded) and not self._said:
            self._said = True
            self.services.bridge.submit(lambda eng: (eng.device_info(), eng.cluster), quiet=True,
                                   returned=lambda r: self.where.setText(where_text(*r)),
                                   errored=lambda e: self.where.setText(""))


def where_text(info: dict[str, Any], cluster: str | None) -> str:
    """The status bar's line: which machine and device run the tasks."""
    if cluster:
        return f"runs on {info.get('label', '?')} via {cluster}"
    return f"runs on this machine ({info.get('backend', '?')})"
