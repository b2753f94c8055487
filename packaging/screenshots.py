"""Makes the documentation's screenshots from a real window on the bundled demo (CPU backend, offscreen).

`QT_QPA_PLATFORM=offscreen python packaging/screenshots.py OUTDIR [WxH ...]` (default sizes 1400x900
and 1920x1080) writes, per size and theme: window-THEME-WxH.png (the tree, the source and the PTX side
by side, the timings below) and compare-THEME-WxH.png (the Compare page with two named runs,
"baseline" and "rerun" of the same code: every verdict should read same). Once, at the first
size: ptx-error-marker.png (a ptxas error at its PTX line), ptx-diff.png (that edit against the
generated PTX), plots-all-tasks.png and distribution.png. The README's picture comes from
`qdexplorer gui --screenshot docs/screenshot.png`. Every picture must be looked at before it is committed.
"""
import shutil
import sys
import tempfile
import time
from pathlib import Path

TASK = "particle_step_kernel_2_bounce_range_for"


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
            if cond() and time.monotonic() - t0 > 0.4:
                return
            if time.monotonic() - t0 > timeout:
                raise TimeoutError

    def shot(widget, name):
        widget.grab().save(str(out_dir / name))
        print("wrote", out_dir / name)

    apply_theme("light")
    win = MainWindow(engine_factory("cpu"), proj, "no GPU here", settings=Settings(str(tmp / "s.ini")))
    win.views.ptx_panel.ask = lambda *a: False
    win.resize(1400, 900)
    win.show()
    pump(lambda: len(win.compiled) >= 15 and not win.bridge_busy())
    bench = win.bench

    # two named runs of the same code: what Compare says when nothing changed
    win.workload.setCurrentText("particles_64k")
    win.repeat.setValue(20)
    for name in ("baseline", "rerun"):
        n = bench.compare.combo_b.count()
        bench.run_name.setText(name)
        bench.bench_act.trigger()
        pump(lambda n=n: bench.compare.combo_b.count() == n + 1 and not win.bridge_busy())
    bench.compare.compare_btn.click()
    pump(lambda: bench.compare.comparison is not None)
    bench.compare.table.selectRow(0)   # the distribution of the most-changed task (rows are by impact)

    win.workload.setCurrentText("all workloads")
    win.repeat.setValue(20)
    win.run()
    pump(lambda: "run finished" in win.statusBar().currentMessage() and not win.bridge_busy())
    win.plots.launches.scope.setCurrentText("all tasks")

    def kernels_page():
        win.pages.setCurrentIndex(0)
        win.tree.select(TASK)
        win.views.ptx_panel.tabs.setCurrentIndex(0)
        win.bottom.setCurrentIndex(0)

    first = True
    for size in sizes:
        w, h = (int(x) for x in size.split("x"))
        win.resize(w, h)
        for theme in ("light", "dark"):
            win.actions.dark.setChecked(theme == "dark")
            kernels_page()
            pump()
            shot(win, f"window-{theme}-{size}.png")
            win.pages.setCurrentWidget(bench.compare)
            pump()
            shot(win, f"compare-{theme}-{size}.png")
        win.actions.dark.setChecked(False)
        kernels_page()
        if first:
            first = False
            pump()
            shot(win.plots, "plots-all-tasks.png")
            win.tree.select("matmul_kernel_0_range_for")
            win.plots.launches.view.setCurrentIndex(1)
            pump()
            shot(win.plots, "distribution.png")
            win.plots.launches.view.setCurrentIndex(0)
            error_shots(win, pump, shot, diff_name="ptx-diff.png")

    win.views.ptx_panel.drafts.clear()
    win._closing = True
    win.close()
    return 0


def error_shots(win, pump, shot, diff_name):
    """A PTX edit that ptxas refuses: its marker at the line, then the diff against the generated PTX."""
    win.tree.select("saxpy_kernel_0_range_for")
    text = win.views.ptx.toPlainText()
    win.views.ptx.setPlainText(text.replace("mad.lo.s32", "madd.lo.s32", 1))
    win.views.ptx_panel.save()
    pump(lambda: bool(win.views.ptx.markers))
    shot(win, "ptx-error-marker.png")
    win.views.ptx_panel.tabs.setCurrentIndex(1)
    pump()
    shot(win, diff_name)
    win.views.ptx_panel.tabs.setCurrentIndex(0)
    win.views.ptx.setPlainText(text)
    win.views.ptx_panel.drafts.clear()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:] or ["1400x900", "1920x1080"]))
