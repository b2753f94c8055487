"""The shape of the package in figures: lines per folder, modules per folder, classes over 15/25/35
methods, imports of the package's own modules inside functions, reaches into another module's private
attributes. Prints JSON; `--root` measures another checkout (a before/after pair for a closing note).

Usage: python benchmarks/house_figures.py [--root PATH] [--list]
"""
from __future__ import annotations

import argparse
import ast
import json
from collections import Counter
from pathlib import Path


def modules(pkg: Path):
    for p in sorted(pkg.rglob("*.py")):
        if "__pycache__" not in p.parts:
            yield p


def methods(cls: ast.ClassDef) -> int:
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in cls.body)


def function_level_own_imports(tree: ast.AST) -> list[int]:
    """Lines of `import`s of the package's own modules made inside a function."""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(fn):
            if isinstance(n, ast.ImportFrom) and (n.level > 0 or (n.module or "").startswith("qdexplorer")):
                out.append(n.lineno)
            elif isinstance(n, ast.Import) and any(a.name.startswith("qdexplorer") for a in n.names):
                out.append(n.lineno)
    return sorted(set(out))


def private_reaches(tree: ast.AST, own: set[str]) -> list[tuple[int, str]]:
    """`mod._name` / `obj._attr` / `from mod import _name` of a private name this module does not define
    itself (a class of the module reaching its own instances is at home; `os._exit` is the library's
    to offer). Dunders are not private."""
    external = set()   # names bound to other libraries' modules: `os._exit`, `ctypes._SimpleCData` are theirs to offer
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            external.update((a.asname or a.name).split(".")[0] for a in n.names if not a.name.startswith("qdexplorer"))
        elif isinstance(n, ast.ImportFrom) and n.level == 0 and not (n.module or "").startswith("qdexplorer"):
            external.update(a.asname or a.name for a in n.names)
    mine = set()   # private names this module defines: its own classes' state, reached by its own code
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            mine.add(n.name)
        elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
            mine.add(n.attr)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            mine.add(n.id)
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__"):
            if n.attr in mine:
                continue
            base = n.value
            root = base
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in external:
                continue
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id == "super":
                continue
            if isinstance(base, ast.Name) and base.id in own:
                continue  # a class of this module reaching its own instances' state
            out.append((n.lineno, ast.unparse(n)[:60]))
        elif isinstance(n, ast.ImportFrom):
            for a in n.names:
                if a.name.startswith("_") and not a.name.startswith("__") and (
                        n.level > 0 or (n.module or "").startswith("qdexplorer")):
                    out.append((n.lineno, f"from {'.' * n.level}{n.module or ''} import {a.name}"))
    return out


def figures(root: Path, listing: bool = False, parse=None) -> dict:
    """`parse(path)`: the file's syntax tree, where the caller has it already (tests/test_architecture.py)."""
    pkg = root / "qdexplorer"
    lines: Counter = Counter()
    mods: Counter = Counter()
    classes: list = []
    fl_imports: dict = {}
    reaches: dict = {}
    for p in modules(pkg):
        rel = p.relative_to(root)
        folder = str(rel.parent)
        text = p.read_text()
        lines[folder] += text.count("\n")
        mods[folder] += 1
        tree = parse(p) if parse else ast.parse(text)
        own = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
        for c in ast.walk(tree):
            if isinstance(c, ast.ClassDef):
                classes.append((methods(c), f"{rel}:{c.name}"))
        fl = function_level_own_imports(tree)
        if fl:
            fl_imports[str(rel)] = fl
        pr = private_reaches(tree, own)
        if pr:
            reaches[str(rel)] = pr
    classes.sort(reverse=True)
    n_reach = sum(len(v) for v in reaches.values())
    in_lang = sum(len(v) for k, v in reaches.items() if k.startswith("qdexplorer/lang/"))
    out = {
        "lines_total": sum(lines.values()),
        "lines_per_top_folder": dict(sorted(Counter({k.split("/")[1] if "/" in k else "(root)": 0 for k in lines}
                                                     ).items())),
        "modules_per_folder_over_15": {k: v for k, v in sorted(mods.items()) if v > 15},
        "largest_folder_modules": max(mods.values()),
        "classes_over_15_methods": sum(1 for m, _ in classes if m > 15),
        "classes_over_25_methods": sum(1 for m, _ in classes if m > 25),
        "classes_over_35_methods": [f"{n} ({m})" for m, n in classes if m > 35],
        "largest_classes": [f"{n} ({m})" for m, n in classes[:8]],
        "function_level_own_imports": sum(len(v) for v in fl_imports.values()),
        "private_reaches": n_reach,
        "private_reaches_inside_lang": in_lang,
        "private_reaches_outside_lang": n_reach - in_lang,
    }
    per_top: Counter = Counter()
    for k, v in lines.items():
        parts = k.split("/")
        per_top[parts[1] if len(parts) > 1 else "(root modules)"] += v
    out["lines_per_top_folder"] = dict(sorted(per_top.items()))
    if listing:
        out["function_level_import_sites"] = fl_imports
        out["private_reach_sites"] = {k: [f"{ln}: {s}" for ln, s in v] for k, v in reaches.items()}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--list", action="store_true", help="also list every function-level import and private reach")
    a = ap.parse_args()
    print(json.dumps(figures(a.root, a.list), indent=1))


if __name__ == "__main__":
    main()
