"""How the window makes the engine of a project, and where it runs.

The app gives the window a function that builds an engine on this machine; the Cluster setting
(gui/cluster_panel.py) adds a placement, consulted at every build, that builds it on a cluster
instead. The window asks the factory and never has its function swapped behind its back.
"""
from __future__ import annotations

from collections.abc import Callable

from ..engine import Engine

EngineFor = Callable[[str], Callable[[], Engine]]
Placement = Callable[[str], "Callable[[], Engine] | None"]


class EngineFactory:
    def __init__(self, local: EngineFor | None):
        self.local = local
        self.placement: Placement | None = None

    def can_open(self) -> bool:
        """Whether the window may open projects at all (a window made for one screenshot may not)."""
        return self.local is not None

    def place_with(self, placement: Placement) -> None:
        """`placement(path)` builds the engine elsewhere, or returns None for this machine."""
        self.placement = placement

    def __call__(self, path: str) -> Callable[[], Engine]:
        build = self.placement(path) if self.placement is not None else None
        if build is not None:
            return build
        if self.local is None:
            raise RuntimeError("this window opens no projects")
        return self.local(path)
