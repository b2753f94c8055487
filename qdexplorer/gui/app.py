"""`qdexplorer gui [PROJECT]`: open the desktop app on a project (the last one, else the bundled demo).

Also the `--screenshot OUT.png` mode used for the README's picture: offscreen, compile, run a
workload, select the slowest task, save the window, exit.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import pyqtgraph  # noqa: F401 - fail here (and the launcher says what to install) if the GUI stack is missing
from PySide6.QtWidgets import QApplication

from ..compiler.safe_files import write_file
from ..engine import Engine, EngineOptions
from ..ir.errors import QdError
from ..project.loader import ProjectError, bundled_demo, load_project
from ..project.trust import TrustStore
from ..runtime.cuda.detect import cuda_status
from ..wording import plural
from .plumbing import main_thread_gc
from .plumbing.display import display_problem
from .plumbing.exit_signals import ExitOnSignal
from .plumbing.image_bytes import png_bytes
from .main_window import MainWindow, window_icon
from .settings import Settings
from .theme import apply_theme
from .trust_dialog import confirm_trust
from .plumbing.workers import shutdown_all


def engine_factory(backend: str):
    """path → the function that builds that project's Engine. File ▸ Open and the start-up call the
    latter on the engine thread: building an Engine imports the project, which runs its code, so
    it never happens on the GUI thread. A file that fails to import is left out, not fatal. Where
    its overrides and history live is the project layer's rule (qdexplorer/project/data_folder.py),
    which every Engine applies."""
    def engine_for(path):
        # keep_going: a file that does not import is left out and marked red in the tree (Project.broken),
        # the rest of the project usable, rather than the whole folder refused
        return lambda: Engine(load_project(path, keep_going=True), EngineOptions(backend=backend))
    return engine_for


def startup_project(project, settings: Settings, screenshot: bool = False,
                    trust: TrustStore | None = None) -> tuple[Path, Path | None] | None:
    """What the window opens first, and what it falls back to: (project, fallback), or None to quit.

    A project named on the command line must exist (one message, exit 2, before any window) and be
    trusted (declined: exit 2). Without one, the last project is reopened, with the demo as its
    fallback when it fails to import; declining trust in it opens the demo instead of quitting.
    --screenshot never asks: no one is there to answer, and naming a project is consent, as in the CLI.
    """
    if project is not None and not Path(project).exists():
        raise ProjectError(f"project folder not found: {Path(project).resolve()}")
    fallback = None
    if project is None and not screenshot and settings.last_project and Path(settings.last_project).exists():
        project, fallback = settings.last_project, bundled_demo()   # reopened by itself: the demo if it fails
    if project is None:
        return bundled_demo(), None
    if screenshot:
        print(f"qdexplorer: importing the Python files of {project} (this runs the project's code, "
              f"as running a script would)", file=sys.stderr)
    elif not confirm_trust(project, trust):  # opening a project runs its code: ask first, once per folder
        if fallback is None:
            print(f"qdexplorer: not opening {project}: it is not trusted", file=sys.stderr)
            return None
        print(f"qdexplorer: not reopening {project}: it is not trusted; opening the demo", file=sys.stderr)
        return bundled_demo(), None
    return Path(project), fallback


def main(project=None, argv=None, screenshot: str | None = None, workload: str | None = None,
         size: str = "1400x900", theme: str | None = None, repeat: int | None = None,
         held_signals: list[int] | None = None) -> int:
    if screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    problem = display_problem()
    if problem:
        raise QdError(problem)
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    main_thread_gc.install(app)  # worker threads must never free Qt objects (see main_thread_gc)
    app.setApplicationName("qdexplorer")
    app.setOrganizationName("qdexplorer")
    app.setDesktopFileName("io.github.qdexplorer.qdexplorer")
    app.setWindowIcon(window_icon())
    exits = ExitOnSignal(app, held_signals)
    try:
        return _run(app, exits, project, screenshot, workload, size, theme, repeat)
    finally:
        shutdown_all()    # no background job may still run (and emit) while the interpreter exits
        exits.restore()


def _run(app, exits: ExitOnSignal, project, screenshot, workload, size, theme, repeat) -> int:
    if exits.code is not None:     # a signal while the app was starting: no dialog, no window
        return exits.code
    settings = Settings(str(Path(tempfile.mkdtemp(prefix="qdx-shot-")) / "s.ini")) if screenshot else Settings()
    apply_theme(theme or settings.theme)
    st = cuda_status()
    backend = "cuda" if st.available else "cpu"
    chosen = startup_project(project, settings, screenshot=bool(screenshot))
    if exits.code is not None:     # a signal while the trust question was open
        return exits.code
    if chosen is None:
        return 2
    project, fallback = chosen
    win = MainWindow(engine_factory(backend), project, "" if st.available else st.reason, settings=settings,
                     fallback=fallback)
    exits.window = win
    if st.available:
        win.backend.setCurrentText("cuda")
    if screenshot:
        w, h = (int(x) for x in size.lower().split("x"))
        return take_screenshot(app, win, screenshot, workload, (w, h), repeat or 20, exits=exits)
    win.show()
    return exits.code if exits.code is not None else app.exec()


class _Signalled(Exception):
    """SIGINT / SIGTERM while the screenshot waited: it ends as the window does (gui/exit_signals.py)."""


def take_screenshot(app, win, out: str, workload: str | None, size: tuple[int, int], repeat: int,
                    timeout: float = 600, exits: ExitOnSignal | None = None) -> int:
    """Compile, run `workload` (default: the first), select the slowest task, save the window. Ends with
    128 + the signal's number on SIGINT / SIGTERM, and at once with the error when nothing compiled."""
    try:
        return _screenshot(app, win, out, workload, size, repeat, timeout, exits)
    except _Signalled:
        for _ in range(5):   # ExitOnSignal's own step (stop the run, close the window) lands
            app.processEvents()
        if win.isVisible():
            win.terminate()
        return exits.code if exits is not None and exits.code is not None else 130


def nothing_compiled(win) -> str | None:
    """Why nothing can be run, once a compile has finished and no task compiled; None otherwise."""
    done = win.session.last_compile
    if done is None or win.bridge_busy() or any(not ct.error for ct in win.compiled.values()):
        return None
    errors = [k.error for k in win.session.kernels.values() if k.error]
    errors += [f"{task}: {ct.error}" for task, ct in win.compiled.items() if ct.error]
    first = errors[0].splitlines()[0] if errors else "the project has no kernels"
    return f"nothing compiled ({plural(len(errors), 'error')}): {first}"


def _screenshot(app, win, out, workload, size, repeat, timeout, exits) -> int:
    win.projects.set_unattended()
    win.resize(*size)
    win.show()

    def wait(cond, what):
        t0 = time.monotonic()
        while not cond():
            app.processEvents()
            time.sleep(0.01)
            if exits is not None and exits.code is not None:
                raise _Signalled()
            if win.projects.open_error:   # a project that cannot be opened: said, instead of a box no one closes
                raise QdError(f"--screenshot: cannot open the project: {win.projects.open_error}")
            if time.monotonic() - t0 > timeout:
                raise QdError(f"--screenshot: timed out waiting for {what}")

    def compiled() -> bool:
        why = nothing_compiled(win)
        if why:
            raise QdError(f"--screenshot: {why}")
        return bool(win.workload.count() > 1 and win.compiled and not win.bridge_busy()
                    and "compiled" in win.statusBar().currentMessage())
    wait(compiled, "the compile")
    names = [win.workload.itemText(i) for i in range(1, win.workload.count())]
    if workload and workload not in names:
        raise QdError(f"--screenshot: no workload named '{workload}' (known: {', '.join(names)})")
    win.workload.setCurrentText(workload or names[0])
    win.repeat.setValue(repeat)
    runs = len(win.session.runs)
    win.runs.run()
    wait(lambda: len(win.session.runs) > runs and win.session.runs[-1].status != "running" and not win.bridge_busy(),
         "the run")
    medians = {t: win.session.median(t) for t in win.session.task_names()}
    slowest = max((t for t in medians if medians[t] is not None), key=lambda t: medians[t], default=None)
    if slowest:
        win.tree.select(slowest)
    wait(lambda: not win.bridge_busy(), "the resource estimates")
    for _ in range(30):  # let the plots' 10 Hz timer and the last events land
        app.processEvents()
        time.sleep(0.02)
    image = win.grab()
    win.close()
    try:
        write_file(out, png_bytes(image.toImage()))
    except (OSError, QdError) as e:
        raise QdError(f"--screenshot: could not write {out}: {getattr(e, 'strerror', None) or e}") from None
    print(f"saved {out} ({size[0]}x{size[1]}; slowest task {slowest})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
