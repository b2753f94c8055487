"""What the window's helpers may use of it: a narrow `WindowServices` of parts, not the window.

napari's layer controls get their layer, not the viewer; here the Bench, Cluster, Sweep and Panes
helpers get the engine bridge, the settings and the window's parts, each one idea: `activity` (the
status bar's line and what it counts), `messages` (the Messages pane), `runs` (the Run toolbar's
choices, the Stop button, a command's failure), `project` (the open project's path and session, and
reopening it on other engines) and `pages` (bringing a page or panel to the front). They build
their own widgets and actions and hand them back for the window to lay out; they never set
anything on the window, and hold no calls back into it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # types only: the window builds the parts; a helper importing this need not import them all
    from .bridge import EngineBridge
    from .parts import Activity, Messages, Pages
    from .project_opener import ProjectOpener
    from .run_control import RunControl
    from .settings import Settings


@dataclass(frozen=True)
class WindowServices:
    """Built by the window from its own parts; each helper keeps one and asks the part it needs."""
    bridge: EngineBridge
    settings: Settings
    activity: Activity
    messages: Messages
    runs: RunControl
    project: ProjectOpener
    pages: Pages
