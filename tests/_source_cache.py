"""One read and one parse of each source file while a test module runs: the architecture and doc checks each
walked the package's syntax trees in several tests and helpers, and parsing (not walking) was most of their CPU
(~7 s for the package, tests, benchmarks and examples). The trees are dropped when the module ends (`clear`,
from a module fixture): kept for the rest of a worker's session, 100 MiB of them would be scanned by every
later full garbage collection. Callers read the trees and never change them."""
from __future__ import annotations

import ast
from pathlib import Path

_texts: dict[Path, str] = {}
_trees: dict[Path, ast.Module] = {}


def text(path: Path) -> str:
    if path not in _texts:
        _texts[path] = path.read_text()
    return _texts[path]


def tree(path: Path) -> ast.Module:
    if path not in _trees:
        _trees[path] = ast.parse(text(path), str(path))
    return _trees[path]


def clear() -> None:
    _texts.clear()
    _trees.clear()
