"""What the window's helpers may use of it: a narrow `WindowServices`, not the window.

napari's layer controls get their layer, not the viewer; here the Bench, Cluster and Sweep
helpers get the engine bridge, the settings, the open session, the Run choices and a few
calls back (log, status, a failure, the Stop button), build their own widgets and actions, and
hand them back for the window to lay out. They never set anything on the window.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session
    from .bridge import EngineBridge
    from .run_control import RunChoice, RunControl   # types only: run_control imports this module
    from .settings import Settings


class WindowServices:
    """Built by the window from its own parts; each helper keeps one and asks it."""

    def __init__(self, bridge: EngineBridge, settings: Settings, runs: RunControl, session: Callable[[], Session],
                 log: Callable[[str], None], status: Callable[[str], None],
                 project_path: Callable[[], str | None], opened: Callable[[Any], None], show: Callable[[Any], None]):
        """`runs`: the window's Run part, whose choices, Stop button, failure line and progress
        activity the helpers share with the Run command (handed out as its calls, not as the part)."""
        self.bridge, self.settings = bridge, settings
        self._session, self._project_path = session, project_path
        self.log, self.status, self.opened, self.show = log, status, opened, show
        self.failed, self.choose_backend = runs.failed, runs.choose_backend
        self.running = runs.actions.stop.setEnabled
        self._choice = runs.choice
        self.begin, self.end, self.note = runs.begin, runs.end, runs.label.setText   # an activity the status bar counts; its last word

    @property
    def session(self) -> Session:
        """The open project's session (a new one each time a project opens)."""
        return self._session()

    def choice(self) -> RunChoice:
        return self._choice()

    def project_path(self) -> str | None:
        return self._project_path()
