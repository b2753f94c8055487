"""Code panes as data: which (task, stage, code) each pane shows, and how they are laid out.

A pane shows one task's code at one stage — its source, LLVM IR, PTX or SASS — taken from what is
in use now, from what the compiler generated, or from what a saved run measured. Its task is fixed
(pinned) or follows the window's selection (`task` None). A diff pane compares two such choices.
The layout is plain JSON, saved with the project (`<project>/.qdexplorer/panes.json`, beside the
run history) and restored on open; the same small file is what Export / Import layout write and read.
Qt-free: the window's `gui/code/panes.py` draws it.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..compiler.safe_files import write_file
from ..ir.errors import QdError
from .data_folder import state_folder

STAGES = ("source", "ll", "ptx", "sass")
FILE = "panes.json"
VERSION = 1


@dataclass
class PaneView:
    """One pane's choice: `task` None follows the selection; `code` is 'current' (in use now),
    'generated' (the compiler's own output) or 'run:<ref>' (what a saved run measured)."""
    task: str | None = None
    stage: str = "ptx"
    code: str = "current"
    arch: str | None = None        # SASS only: the GPU architecture (None: the task's own target)

    @property
    def pinned(self) -> bool:
        return self.task is not None

    def check(self) -> PaneView:
        if self.stage not in STAGES:
            raise QdError(f"a pane's stage is one of {', '.join(STAGES)}, not {self.stage!r}")
        if not (self.code in ("current", "generated") or self.code.startswith("run:")):
            raise QdError(f"a pane's code is current, generated or run:<name>, not {self.code!r}")
        return self

    def title(self, selected: str | None = None) -> str:
        task = self.task or (f"{selected} (selection)" if selected else "(selection)")
        code = {"current": "", "generated": " · generated"}.get(self.code, f" · run {self.code[4:]}")
        arch = f" {self.arch}" if self.arch and self.stage == "sass" else ""
        return f"{task} · {self.stage.upper() if self.stage != 'source' else 'source'}{arch}{code}"


@dataclass
class PaneSpec:
    """A pane: one view, or (`other` set) a diff of `view` (left) against `other` (right)."""
    view: PaneView = field(default_factory=PaneView)
    other: PaneView | None = None

    @property
    def is_diff(self) -> bool:
        return self.other is not None


@dataclass
class PaneLayout:
    panes: list[PaneSpec] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)   # the splitter's sizes, left to right (may be empty)

    def to_json(self) -> str:
        return json.dumps({"qdexplorer_panes": VERSION, "panes": [asdict(p) for p in self.panes],
                           "sizes": self.sizes}, indent=1)

    @classmethod
    def from_json(cls, text: str) -> PaneLayout:
        try:
            d = json.loads(text)
            if not isinstance(d, dict) or d.get("qdexplorer_panes") != VERSION:
                raise ValueError("not a qdexplorer pane layout (version 1)")
            panes = [PaneSpec(_view(p["view"]), _view(p["other"]) if p.get("other") else None) for p in d["panes"]]
            sizes = [int(s) for s in d.get("sizes", [])]
        except (ValueError, KeyError, TypeError) as e:
            raise QdError(f"cannot read this pane layout: {e}") from None
        return cls(panes, sizes)


def _view(d: dict[str, Any]) -> PaneView:
    return PaneView(d.get("task"), d.get("stage", "ptx"), d.get("code", "current"), d.get("arch")).check()


def layout_path(project: str | Path | None) -> Path:
    return state_folder(project) / FILE


def load_layout(project: str | Path | None) -> PaneLayout | None:
    """The project's saved layout; None when it has none (or it cannot be read: the panes start empty)."""
    path = layout_path(project)
    try:
        return PaneLayout.from_json(path.read_text())
    except (OSError, QdError):
        return None


def save_layout(project: str | Path | None, layout: PaneLayout) -> Path:
    return export_layout(layout_path(project), layout)


def export_layout(path: str | Path, layout: PaneLayout) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_file(path, layout.to_json() + "\n")
    return path


def import_layout(path: str | Path) -> PaneLayout:
    try:
        return PaneLayout.from_json(Path(path).read_text())
    except OSError as e:
        raise QdError(f"cannot read {path}: {e.strerror or e}") from None
