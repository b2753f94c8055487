"""Screenshots of the Counters tab on a GPU with ncu (issue 30), offscreen, on the bundled demo.

    QT_QPA_PLATFORM=offscreen python benchmarks/counters_window_shot.py OUTDIR [--size 1600x1000]

1. counters_ab.png: the copy task's PTX edited (every global load doubled, `counters.edits`),
   saved with "Profile on Save & use" on: the A/B of generated against the edit, full preset,
   largest changes first, with both roofline points; counters_ab_lines.png: its PTX lines, A's
   gutter beside B's, aligned by line;
2. counters_gutters.png: the same task's PTX tab and source pane with their counters gutters;
3. counters_roofline.png: saxpy profiled alone (full preset): figures, limiter and roofline point.
Anything that fails or times out exits 1 with what went wrong; the figures go to stdout as JSON.

`--reports DIR` draws 1 and 2 here, without a GPU, from the real reports that
`benchmarks/counters_capture_gpu.py DIR` made on one (generated.ncu-rep, edited.ncu-rep and the PTX
each was made from): a stand-in `ncu` on PATH hands the window's own profiles the report of the side
it asks for (the edit is known by its `%qdxdbl` registers), and refuses when the PTX the window
profiles is not the PTX the report was made from. Everything else (the engine, the child request,
the cache, the reading, the tab) is the window's own path. Needs the report reader (`[counters]`).
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

TASK = "copy_kernel_0_range_for"


class ShotFailed(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--size", default="1600x1000")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--task", default=TASK, help="the task edited and compared (default: copy's)")
    ap.add_argument("--reports", metavar="DIR", help="draw from the reports counters_capture_gpu.py made on a GPU")
    args = ap.parse_args(argv)
    if args.reports:
        stand_in_ncu(Path(args.reports), Path(tempfile.mkdtemp(prefix="qdx-stand-in-ncu-")))
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        figures = shoot(args)
    except ShotFailed as e:
        print(f"counters_window_shot: {e}", file=sys.stderr)
        return 1
    print(json.dumps(figures, indent=1))
    return 0


def shoot(args) -> dict:
    task = args.task
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance() or QApplication(sys.argv[:1])
    from qdexplorer.counters.edits import double_global_loads
    from qdexplorer.gui.app import engine_factory
    from qdexplorer.gui.main_window import MainWindow
    from qdexplorer.gui.settings import Settings
    from qdexplorer.gui.theme import apply_theme
    from qdexplorer.project.loader import bundled_demo

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="qdx-counters-shot-"))
    proj = tmp / "demo"
    shutil.copytree(bundled_demo(), proj)
    w, h = (int(x) for x in args.size.split("x"))

    def wait(what, cond, timeout=args.timeout):
        t0 = time.monotonic()
        while not cond():
            app.processEvents()
            time.sleep(0.02)
            if time.monotonic() - t0 > timeout:
                raise ShotFailed(f"timed out after {timeout:.0f} s waiting for {what}; status: "
                                 f"{win.views.counters.status.text()!r}")
        for _ in range(30):
            app.processEvents()
            time.sleep(0.01)
        return time.monotonic() - t0

    apply_theme("light")
    win = MainWindow(engine_factory("cuda"), proj, "", settings=Settings(str(tmp / "settings.ini")))
    win.views.ptx_panel.ask = lambda *a: True
    win.resize(w, h)
    win.show()

    def roomy():
        """Room for the code views: a narrow tree, the views over a short bottom panel."""
        win.split.setSizes([int(w * 0.2), int(w * 0.8)])
        win.views.setSizes([int(w * 0.3), int(w * 0.5)])
        win.right.setSizes([int(h * 0.82), int(h * 0.18)])
        for _ in range(20):
            app.processEvents()
    wait("the first compile", lambda: task in win.compiled and not win.bridge_busy())
    win.backend.setCurrentText("cuda")   # what the status bar and the toolbar say (counters always run on CUDA)
    wait("the CUDA engine", lambda: task in win.compiled and not win.bridge_busy())
    view = win.views.counters
    figures = {}

    # 1. an edit saved with "Profile on Save & use": the A/B
    win.tree.select(task)
    wait("the task's PTX", lambda: ".entry " + task in win.views.ptx.toPlainText())
    view.preset.setCurrentText("full")
    view.on_save.setChecked(True)
    edited = double_global_loads(win.views.ptx.toPlainText())
    t0 = time.monotonic()
    win.edits.save_override(task, edited)
    wait("the A/B after Save & use", lambda: view.table.columnCount() == 7 and not win.bridge_busy())
    figures["ab_s"] = round(time.monotonic() - t0, 1)
    win.views.tabs.setCurrentWidget(view)
    figures["ab_status"] = view.status.text()
    figures["ab_rows"] = [[view.table.item(i, j).text() for j in range(6)] for i in range(view.table.rowCount())]
    roomy()
    _save(win.grab(), out / "counters_ab.png")
    # 1b. the same A/B's PTX lines, A's gutter and B's side by side, aligned by line
    view.lower_tabs.setCurrentIndex(1)
    lower = view.lower_tabs.parentWidget()        # the page beside the roofline: give it the room
    lower.setSizes([int(sum(lower.sizes()) * 0.8), int(sum(lower.sizes()) * 0.2)])
    left, right = view.ab_ptx.left, view.ab_ptx.right
    hot = max(right.heat, key=lambda r: right.heat[r][0]) if right.heat else 1
    right.goto_line(hot)
    wait("the PTX lines page", lambda: True, timeout=5)
    figures["ab_lines"] = {"A": len(left.heat), "B": len(right.heat), "note": view.ab_note.text()}
    _save(win.grab(), out / "counters_ab_lines.png")
    view.lower_tabs.setCurrentIndex(0)

    # 2. the gutters: PTX tab (line counters of the edit) beside the source pane
    win.views.tabs.setCurrentWidget(win.views.ptx_panel)
    hot = max(win.views.ptx.heat, key=lambda ln: win.views.ptx.heat[ln][0]) if win.views.ptx.heat else 1
    win.views.ptx.goto_line(hot)
    wait("the PTX tab", lambda: True, timeout=5)
    figures["ptx_gutter_lines"] = len(win.views.ptx.heat)
    figures["source_gutter_lines"] = sorted(win.views.source.heat)
    roomy()
    win.views.ptx.goto_line(hot)
    _save(win.grab(), out / "counters_gutters.png")

    if args.reports and not (Path(args.reports) / "saxpy_kernel_0_range_for.ncu-rep").exists():
        # the roofline shot needs saxpy's own report (counters_capture_gpu.py makes one)
        win._closing = True
        win.close()
        return figures

    # 3. saxpy alone: the roofline point
    win.tree.select("saxpy_kernel_0_range_for")
    win.views.tabs.setCurrentWidget(view)
    wait("saxpy selected", lambda: view.task == "saxpy_kernel_0_range_for")
    view.profile_btn.click()
    wait("saxpy's profile", lambda: view.profile_btn.isEnabled() and view.table.columnCount() == 3
         and "replay passes" in view.status.text())
    figures["saxpy_status"] = view.status.text()
    figures["saxpy_limiter"] = view.limiter.text()
    figures["saxpy_roofline"] = view.roof_title.text()
    roomy()
    _save(win.grab(), out / "counters_roofline.png")
    win._closing = True
    win.close()
    return figures


STAND_IN = r'''#!{python}
import os, pickle, shutil, sys
args = sys.argv[1:]
if args[:1] == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion {version} (stand-in: hands over reports made on a GPU)")
    sys.exit(0)
req = pickle.load(open(args[-1], "rb"))
task = args[args.index("-k") + 1].split("^", 1)[1].rstrip("$")
(item,) = [it for it in req["items"] if it.spec.task == task]
code = item.code.decode()
side = ("edited" if "%qdxdbl" in code else "generated") if task == {copy!r} else task
folder = {folder!r}
want = open(os.path.join(folder, side + ".ptx")).read()
body = lambda t: [ln for ln in t.splitlines() if ln.strip() and not ln.lstrip().startswith((".loc", ".file"))]
if body(code) != body(want):
    print("==ERROR== stand-in: the PTX profiled here is not the PTX the " + side + " report was made from")
    sys.exit(1)
# the side's repeats in turn (generated.ncu-rep, generated1.ncu-rep, ...), as the GPU made them
reps = [n for n in (side + (str(i) if i else "") + ".ncu-rep" for i in range(9))
        if os.path.exists(os.path.join(folder, n))]
count = os.path.join(os.path.dirname(os.path.abspath(__file__)), side + ".count")
k = int(open(count).read()) if os.path.exists(count) else 0
open(count, "w").write(str(k + 1))
out = args[args.index("-o") + 1] + ".ncu-rep"
print('==PROF== Profiling "' + task + '": 0%....50%....100% - 20 passes')
shutil.copyfile(os.path.join(folder, reps[k % len(reps)]), out)
'''


def stand_in_ncu(reports: Path, bindir: Path) -> None:
    """Put the stand-in ncu first on PATH and tell the probe there is a GPU (the reports' own)."""
    import ncu_report
    from qdexplorer.runtime.cuda import detect
    action = ncu_report.load_report(str(reports / "generated.ncu-rep"))[0][0]
    version = "2025.3.1.0"
    device = action.metric_by_name("device__attribute_display_name").as_string()
    ncu = bindir / "ncu"
    ncu.write_text(STAND_IN.replace("{python}", sys.executable).replace("{version}", version)
                   .replace("{folder!r}", repr(str(reports.resolve()))).replace("{copy!r}", repr(TASK)))
    ncu.chmod(0o755)
    os.environ["PATH"] = f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"
    os.environ.pop("QDEXPLORER_NCU", None)
    detect._status[:] = [detect.CudaStatus(True, name=f"{device} (its reports)", arch="sm_90")]


def _save(picture, path: Path) -> None:
    if not picture.save(str(path)):
        raise ShotFailed(f"could not write {path}")


if __name__ == "__main__":
    sys.exit(main())
