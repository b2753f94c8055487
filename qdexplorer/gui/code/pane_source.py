"""Where the Panes page's texts come from, in the window: the session's compiled tasks (now and as
generated), the engine for SASS (off the GUI thread), and the run history for what a saved run
measured (the code runs keep, `report.page.code_of`)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ...bench.history import History
from ...compiler.sass import SassNotAvailable, disassemble
from ...report import code_of
from ...project.data_folder import history_path
from ...project.panes import PaneView
from ..plumbing.workers import error_text
from ..services import WindowServices


class WindowPaneSource:
    """`services`: the window's (gui/services.py): the engine bridge and the open project's session and path."""

    def __init__(self, services: WindowServices):
        self.bridge, self.project = services.bridge, services.project
        self._runs: dict[str, object] = {}

    def tasks(self) -> list[str]:
        return list(self.project.session.task_names())

    def _history(self) -> History | None:
        path = history_path(self.project.path) if self.project.path else None
        return History(path) if path is not None and path.exists() else None

    def runs(self) -> list[str]:
        try:
            h = self._history()
            if h is None:
                return []
            with h:
                return [s.label for s in h.list(warn=False)]
        except Exception:  # noqa: BLE001 - a damaged history lists nothing here; the History tab says why
            return []

    # ---- the Kernels page's code views ask here too (their optimised IR and SASS tabs)
    def serve(self, views) -> None:
        views.want_optimised.connect(lambda task: self._optimised(views, task))
        views.want_sass.connect(lambda task, arch, diff: self._sass(views, task, arch, diff))

    def _optimised(self, views, task: str) -> None:
        self.bridge.submit(lambda eng: eng.code.optimised_ll(task), returned=lambda text: views.show_optimised(task, text),
                               errored=lambda e: views.show_optimised(task, f"; failed: {error_text(e)}"))

    def _sass(self, views, task: str, arch: str, diff: bool) -> None:
        arch_ = arch or None
        if diff:   # the SASS of the generated PTX beside that of the PTX in use, as the PTX tab's diff
            def both(eng):
                got = [eng.code.sass(task, arch_, generated=side) for side in (True, False)]
                return tuple(g if isinstance(g, str) else "\n".join(g.instructions()) for g in got)
            self.bridge.submit(both, returned=lambda ab: views.sass_panel.show_diff(task, *ab),
                                   errored=lambda e: views.sass_panel.show_diff(task, "", f"// failed: {error_text(e)}"))
            return
        self.bridge.submit(lambda eng: eng.code.sass(task, arch_), returned=lambda listing: views.show_sass(task, listing),
                               errored=lambda e: views.show_sass(task, f"// failed: {error_text(e)}"))

    def forget_runs(self):
        self._runs.clear()

    def text(self, view: PaneView, task: str, done: Callable[[str], None]) -> None:
        try:
            if view.code.startswith("run:"):
                self._from_run(view, task, done)
            elif view.stage == "sass":
                generated = view.code == "generated"
                self.bridge.submit(lambda eng: eng.code.sass(task, view.arch, generated=generated),
                                       returned=lambda got: done(got if isinstance(got, str) else got.text),
                                       errored=lambda e: done(f"// failed: {error_text(e)}"), quiet=True)
            else:
                done(self._now(view, task))
        except Exception as e:  # noqa: BLE001 - a pane says what went wrong, the window goes on
            done(f"// {task}: {error_text(e)}")

    def _now(self, view: PaneView, task: str) -> str:
        if view.stage == "source":
            t = self.project.session.task(task)
            if t is None:
                return f"# {task}: not in this project"
            try:
                return Path(str(t.file)).read_text()
            except OSError:
                return t.source
        ct = self.project.session.compiled_task(task, "nvptx")
        if ct is None:
            return f"// {task}: not compiled yet"
        if view.code == "generated":
            a = ct.produced.get(view.stage)
            return a.text if a is not None else f"// {task}: no generated {view.stage}"
        return (ct.ptx if view.stage == "ptx" else ct.ll) or f"// {task}: no {view.stage} ({ct.error or 'none'})"

    def _from_run(self, view: PaneView, task: str, done: Callable[[str], None]) -> None:
        ref = view.code[4:]
        run = self._runs.get(ref)
        if run is None:
            h = self._history()
            if h is None:
                done(f"// no run history: {ref} cannot be read")
                return
            with h:
                run = self._runs[ref] = h.load(ref)
        code = code_of(run, task)
        if view.stage == "source":
            done(f"# a saved run keeps its PTX and LLVM IR, not its source (run {ref})")
        elif view.stage == "ll":
            done(code.ll or f"; run {ref} kept no LLVM IR of {task}")
        elif not code.ptx:
            done(f"// run {ref} kept no PTX of {task} (saved before runs kept their code, or not run)")
        elif view.stage == "ptx":
            done(code.ptx)
        else:
            arch = view.arch or run.context.arch or None

            def job(_eng):
                try:
                    return disassemble(code.ptx, arch).text
                except (SassNotAvailable, ValueError) as e:
                    return f"// {e}"
            self.bridge.submit(job, returned=done, errored=lambda e: done(f"// failed: {error_text(e)}"),
                                   quiet=True)
