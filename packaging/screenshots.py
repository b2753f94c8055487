"""Makes the documentation's screenshots from a real window on the bundled demo (CPU backend, offscreen).

`QT_QPA_PLATFORM=offscreen python packaging/screenshots.py OUTDIR [WxH ...]` writes, per size:
tree.png (tree + source), error.png (PTX with a ptxas error marker), diff.png, plots.png (all
workloads, every task), dist.png (distribution view), dark.png (dark theme). The README's picture
comes from `qdexplorer gui --screenshot docs/screenshot.png`.
"""
import shutil
import sys
import tempfile
import time
from pathlib import Path


def main(out: str, sizes: list[str]) -> int:
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from qdexplorer.gui.app import engine_factory
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    from qdexplorer.gui.theme import apply_theme
    from qdexplorer.project.loader import bundled_demo

    tmp = Path(tempfile.mkdtemp(prefix="qdx-shots-"))
    proj = tmp / "demo"
    shutil.copytree(bundled_demo(), proj)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)

    def pump(cond=lambda: True, timeout=300):
        t0 = time.monotonic()
        while True:
            app.processEvents()
            time.sleep(0.01)
            if cond() and time.monotonic() - t0 > 0.3:
                return
            if time.monotonic() - t0 > timeout:
                raise TimeoutError

    apply_theme("light")
    win = MainWindow(engine_factory("cpu"), proj, "no GPU here", settings=Settings(str(tmp / "s.ini")))
    win.views.ptx_panel.ask = lambda *a: False
    win.show()
    pump(lambda: len(win.compiled) >= 15 and not win.bridge_busy())
    win.workload.setCurrentText("all workloads")
    win.repeat.setValue(30)
    win.run()
    pump(lambda: "run finished" in win.statusBar().currentMessage() and not win.bridge_busy())
    win.plots.launches.scope.setCurrentText("all tasks")
    for size in sizes:
        w, h = (int(x) for x in size.split("x"))
        win.resize(w, h)
        tag = f"{w}x{h}"
        win.tree.select("particle_step_kernel_2_bounce_range_for")
        win.views.setCurrentWidget(win.views.source_pane)
        win.bottom.setCurrentIndex(0)
        pump()
        win.grab().save(str(out_dir / f"tree-{tag}.png"))
        win.tree.select("saxpy_kernel_0_range_for")
        win.views.setCurrentWidget(win.views.ptx_panel)
        text = win.views.ptx.toPlainText()
        win.views.ptx.setPlainText(text.replace("mad.lo.s32", "madd.lo.s32", 1))
        win.views.ptx_panel.save()
        pump(lambda: bool(win.views.ptx.markers))
        win.grab().save(str(out_dir / f"error-{tag}.png"))
        win.views.ptx_panel.tabs.setCurrentIndex(1)
        pump()
        win.grab().save(str(out_dir / f"diff-{tag}.png"))
        win.views.ptx_panel.tabs.setCurrentIndex(0)
        win.views.ptx.setPlainText(text)
        win.bottom.setCurrentIndex(0)
        pump()
        win.plots.grab().save(str(out_dir / f"plots-{tag}.png"))
        win.tree.select("matmul_kernel_0_range_for")
        win.plots.launches.view.setCurrentIndex(1)
        pump()
        win.plots.grab().save(str(out_dir / f"dist-{tag}.png"))
        win.plots.launches.view.setCurrentIndex(0)
        win.dark_act.setChecked(True)
        win.tree.select("particle_step_kernel_2_bounce_range_for")
        win.views.setCurrentWidget(win.views.ptx_panel)
        pump()
        win.grab().save(str(out_dir / f"dark-{tag}.png"))
        win.dark_act.setChecked(False)
    win.views.ptx_panel.drafts.clear()
    win.close()
    print(f"wrote screenshots to {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:] or ["1400x900", "900x600"]))
