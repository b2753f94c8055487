"""Screenshots of the window on a Ray cluster (issue 19): the Device selector open on the cluster's
GPUs, and a sweep's heat map. Offscreen, on the bundled demo; made where the GPUs are.

    QT_QPA_PLATFORM=offscreen python benchmarks/ray_window_shot.py OUTDIR [--cluster local] [--gpus N]
        [--block-dims 64,128,256,512] [--rounds 2] [--size 1400x900] [--theme light]

It joins the cluster (`local` starts a private one here), picks the first GPU the Device selector
lists (a node's CPUs where the cluster has no GPU, as on a CPU-only machine), runs one workload
there so the status bar says where it ran, and writes OUTDIR/selector.png with the selector's list
open over the window. Then it runs a sweep over block_dim on N devices of the cluster (default:
every GPU listed, else 2 CPU actors) and writes OUTDIR/heatmap.png with the Sweep tab's heat map.
Anything that fails or times out exits 1 with what went wrong; the figures go to stdout as JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

CHECK_TASK = "saxpy_kernel_0_range_for"


class ShotFailed(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="folder for selector.png and heatmap.png")
    ap.add_argument("--cluster", default="local", help="local (a private cluster here), auto, or ray://HOST:10001")
    ap.add_argument("--gpus", type=int, default=0, help="devices the sweep measures on (default: every GPU "
                    "the cluster lists, else 2 CPU actors)")
    ap.add_argument("--block-dims", default="64,128,256,512")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--size", default="1400x900")
    ap.add_argument("--theme", choices=["light", "dark"], default="light")
    ap.add_argument("--timeout", type=float, default=300, help="seconds any one step may take")
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        figures = shoot(args)
    except ShotFailed as e:
        print(f"ray_window_shot: {e}", file=sys.stderr)
        return 1
    print(json.dumps(figures, indent=1))
    return 0


def shoot(args) -> dict:
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from qdexplorer.gui.app import engine_factory
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    from qdexplorer.gui.theme import apply_theme
    from qdexplorer.project.loader import bundled_demo

    t_start = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="qdx-ray-shot-"))
    proj = tmp / "demo"
    shutil.copytree(bundled_demo(), proj)
    w, h = (int(x) for x in args.size.split("x"))

    def wait(what: str, cond, timeout: float = args.timeout):
        t0 = time.monotonic()
        while not cond():
            app.processEvents()
            time.sleep(0.02)
            if time.monotonic() - t0 > timeout:
                raise ShotFailed(f"timed out after {timeout:.0f} s waiting for {what}; status bar: "
                                 f"{win.statusBar().currentMessage()!r}; last messages: {last_messages()}")
        for _ in range(20):   # let the views repaint
            app.processEvents()
            time.sleep(0.01)
        return time.monotonic() - t0

    def last_messages() -> str:
        return " | ".join(win.messages.toPlainText().strip().splitlines()[-3:])

    apply_theme(args.theme)
    win = MainWindow(engine_factory("cpu"), proj, "compiled here; runs on the cluster",
                     settings=Settings(str(tmp / "settings.ini")))
    win.views.ptx_panel.ask = lambda *a: False
    win.resize(w, h)
    win.show()
    wait("the demo's first compile", lambda: CHECK_TASK in win.compiled and not win.bridge_busy())
    c = win.cluster
    c.set_cluster(args.cluster)
    t_join = wait(f"the cluster {args.cluster} to list its devices", lambda: not c.listing())
    if not c.targets:
        raise ShotFailed(f"the cluster {args.cluster} lists no devices: {last_messages()}")
    gpus = [i for i, t in enumerate(c.targets) if t.gpu is not None]
    cpus = [i for i, t in enumerate(c.targets) if t.backend == "cpu"]
    pick = (gpus or cpus or [None])[0]
    if pick is None:
        raise ShotFailed(f"the cluster {args.cluster} offers neither a GPU nor a node's CPUs: "
                         f"{[t.label for t in c.targets]}")
    target = c.targets[pick]
    c.device.setCurrentIndex(pick)
    c.device.activated.emit(pick)
    wait(f"the engine to move to {target.label}",
         lambda: win.bridge.engine is not None and win.bridge.engine.cluster == args.cluster
         and CHECK_TASK in win.compiled and not win.bridge_busy())
    win.workload.setCurrentText("saxpy_1m")
    win.repeat.setValue(5)
    win.runs.run()
    wait("a run on the cluster and the status bar's 'runs on' line",
         lambda: c.where.text().startswith("runs on") and " via " in c.where.text() and not win.bridge_busy())
    if "passed" not in win.statusBar().currentMessage():
        raise ShotFailed(f"the run on {target.label} did not pass: {win.statusBar().currentMessage()!r}")

    # the selector's list is a window of its own: drawn over the window's picture where it opened
    c.device.showPopup()
    popup = c.device.view().window()
    wait("the Device list to open", popup.isVisible, timeout=10)
    picture = win.grab()
    painter = QPainter(picture)
    # drawn under the selector, as on a desktop (the offscreen screen is 800x600 and pushes the list left)
    list_pic = popup.grab()
    at = c.device.mapTo(win, QPoint(0, c.device.height()))
    painter.drawPixmap(QPoint(min(at.x(), win.width() - list_pic.width()), at.y()), list_pic)
    painter.end()
    c.device.hidePopup()
    save(picture, out / "selector.png")

    n = args.gpus or (len(gpus) if gpus else 2)
    view = win.sweep
    win.bottom.setCurrentWidget(view)
    win.right.setSizes([int(h * 0.3), int(h * 0.7)])   # room for the heat map's rows
    view.block_dims.setText(args.block_dims)
    view.fast_math.setChecked(False)
    view.devices.setValue(n)
    view.rounds.setValue(args.rounds)
    view.start_button.click()
    t_sweep = wait(f"a sweep of block_dim={args.block_dims} on {n} device(s)", lambda: not view.running)
    result = view.heat.result
    if result is None or view.heat.rowCount() == 0:
        raise ShotFailed(f"the sweep gave no heat map: {view.status.text()!r}; {last_messages()}")
    if result.status != "complete":
        raise ShotFailed(f"the sweep ended {result.status}: {view.status.text()!r}")
    save(win.grab(), out / "heatmap.png")
    figures = {"cluster": args.cluster, "device": target.label, "runs_on": c.where.text(),
               "selector": [c.device.itemText(i) for i in range(c.device.count())],
               "sweep": result.name, "sweep_devices": result.devices(), "variants": [v.label for v in result.variants],
               "tasks": len(result.tasks()), "join_s": round(t_join, 1), "sweep_s": round(t_sweep, 1),
               "total_s": round(time.monotonic() - t_start, 1),
               "files": [str(out / "selector.png"), str(out / "heatmap.png")]}
    win._closing = True
    win.close()
    return figures


def save(picture, path: Path) -> None:
    if not picture.save(str(path)):
        raise ShotFailed(f"could not write {path}")


if __name__ == "__main__":
    sys.exit(main())
