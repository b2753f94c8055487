"""What the window's helpers may use of it: a narrow `WindowServices`, not the window.

napari's layer controls get their layer, not the viewer; here the Bench, Cluster and Sweep
helpers get the engine bridge, the settings, the open session, the Run choices and a few
calls back (log, status, a failure, the Stop button), build their own widgets and actions, and
hand them back for the window to lay out. They never set anything on the window.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..session import Session
    from .bridge import EngineBridge
    from .settings import Settings


@dataclass(frozen=True)
class RunChoice:
    """The Run toolbar's settings when a command reads them."""
    workload: str      # '' or 'all workloads': every one
    backend: str
    repeat: int

    def workloads(self) -> list[str] | None:
        """The workload asked for, or None for all of them."""
        return None if self.workload in ("", "all workloads") else [self.workload]


class WindowServices:
    """Built by the window from its own parts; each helper keeps one and asks it."""

    def __init__(self, bridge: EngineBridge, settings: Settings, session: Callable[[], Session],
                 log: Callable[[str], None], status: Callable[[str], None],
                 failed: Callable[[str, Exception], None], running: Callable[[bool], None],
                 choice: Callable[[], RunChoice], choose_backend: Callable[[str], None],
                 project_path: Callable[[], str | None], opened: Callable[[Any], None],
                 show: Callable[[Any], None], begin: Callable[[str], None], end: Callable[[], None],
                 note: Callable[[str], None]):
        self.bridge, self.settings = bridge, settings
        self._session, self._choice, self._project_path = session, choice, project_path
        self.log, self.status, self.failed, self.running = log, status, failed, running
        self.choose_backend, self.opened, self.show = choose_backend, opened, show
        self.begin, self.end, self.note = begin, end, note   # an activity the status bar counts; its last word

    @property
    def session(self) -> Session:
        """The open project's session (a new one each time a project opens)."""
        return self._session()

    def choice(self) -> RunChoice:
        return self._choice()

    def project_path(self) -> str | None:
        return self._project_path()
