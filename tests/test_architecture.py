"""The shape of the house: Qt only in the window, layers that point down, no import cycles, and an
Engine that everyone drives through its public API."""
import ast
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _source_cache

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "qdexplorer"

PROBE = """
import sys
import qdexplorer.engine, qdexplorer.cli, qdexplorer.lang, qdexplorer.runtime.worker, qdexplorer.compiler.pool
import qdexplorer.runtime.cpu, qdexplorer.bench, qdexplorer.session, qdexplorer.script, qdexplorer.launcher
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6'))
print(','.join(bad))
"""


@pytest.fixture(autouse=True, scope="module")
def _one_parse_a_file():
    yield
    _source_cache.clear()


def test_engine_imports_without_qt():
    p = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    assert p.stdout.strip() == ""


def test_import_linter_contracts():
    """Run from the environment the tests run in: a missing import-linter is a failure, not a skip."""
    exe = Path(sys.executable).with_name("lint-imports")
    assert exe.exists(), f"import-linter is not installed beside {sys.executable}: pip install '.[test]'"
    p = subprocess.run([str(exe)], capture_output=True, text=True, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert p.returncode == 0, p.stdout + p.stderr


def _cycles(graph, modules):
    """Strongly connected components of more than one module (Tarjan), over every import the
    code makes, those inside functions included."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in modules:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for m in sorted(modules):
        if m not in index:
            visit(m)
    return out


def test_no_module_imports_itself_through_others():
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install '.[test]')")
    graph = grimp.build_graph("qdexplorer", include_external_packages=False)
    # a package's __init__ that only hands names on is part of its modules, not a room of its own
    modules = {m for m in graph.modules if not m.startswith("qdexplorer.resources")}
    assert _cycles(graph, modules) == []


# `code` (engine_parts/task_code.py's TaskCode) answers optimised_ll / sass / resources, which were three
# Engine methods: the code views' questions, one idea, asked through one part (issue: no class over 35 methods)
ENGINE_API = sorted(['announce', 'arch', 'backend', 'cache_info', 'close', 'close_device', 'cluster', 'code', 'compile', 'compiled_for', 'counters', 'device_info', 'load_folder_report', 'mode', 'options', 'override', 'project', 'refresh', 'revert_override', 'run', 'session', 'set_backend', 'set_mode', 'set_override', 'stop', 'subscribe', 'target', 'twins', 'variant', 'warm_up'])


def test_the_engine_public_api_is_this_and_no_more():
    from qdexplorer.engine import Engine
    assert sorted(n for n in dir(Engine) if not n.startswith("_")) == ENGINE_API


def _engine_private_names():
    tree = _source_cache.tree(ROOT / "qdexplorer" / "engine.py")
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine")
    names = {f.name for f in cls.body if isinstance(f, ast.FunctionDef) and f.name.startswith("_")
             and not f.name.startswith("__")}
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            names.add(node.attr)
    return names


def _engine_like(expr) -> bool:
    text = ast.unparse(expr).lower()
    return "eng" in text.rsplit(".", 1)[-1] or text.endswith("engine")


@pytest.mark.parametrize("folder", ["qdexplorer", "tests", "benchmarks", "examples"])
def test_no_one_outside_the_engine_touches_its_private_state(folder):
    private = _engine_private_names()
    assert {"_device", "_pipeline", "_session", "_listeners"} <= private
    # a file where none of the names is a word has no attribute of that name: it is not parsed (parsing every
    # file of the four folders was 8 s of CPU; a dozen files a folder hold one of the words)
    words = re.compile(r"\b(" + "|".join(map(re.escape, sorted(private))) + r")\b")
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        if path == ROOT / "qdexplorer" / "engine.py" or not words.search(_source_cache.text(path)):
            continue
        for node in ast.walk(_source_cache.tree(path)):
            if isinstance(node, ast.Attribute) and node.attr in private and _engine_like(node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def _methods(cls: ast.ClassDef) -> list[str]:
    return [f.name for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]


def test_no_class_in_the_runtime_has_more_than_15_methods():
    """One job a class (tinygrad's small classes): a class past 15 methods is doing two."""
    big = []
    for path in sorted((ROOT / "qdexplorer" / "runtime").rglob("*.py")):
        for node in ast.walk(_source_cache.tree(path)):
            if isinstance(node, ast.ClassDef) and len(_methods(node)) > 15:
                big.append(f"{path.relative_to(ROOT)}: {node.name} has {len(_methods(node))} methods")
    assert big == []


def test_the_cpu_backend_has_no_methods_that_do_nothing():
    """What the host does not need, it does not pretend to have: no `pass`, docstring-only or
    constant-returning stand-ins for the GPU's waits and stream interop."""
    tree = _source_cache.tree(ROOT / "qdexplorer" / "runtime" / "cpu.py")
    empty = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for f in cls.body:
            if not isinstance(f, ast.FunctionDef):
                continue
            body = [s for s in f.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if not body or all(isinstance(s, ast.Pass) for s in body) or (
                    len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, (ast.Constant, ast.Call))
                    and ast.unparse(body[0].value) in ("None", "set()")):
                empty.append(f"{cls.name}.{f.name}")
    assert empty == []


def test_the_layers_below_the_language_load_without_it():
    """`codegen`, `compiler`, `runtime` and `counters` stand on the IR floor (`qdexplorer.ir`):
    loading every module of them must not load `qdexplorer.lang`. (`bench` and `remote` import no
    module of the language either, the import-linter contract says; they reach projects, which do.)"""
    code = (
        "import importlib, pkgutil, sys\n"
        "import qdexplorer\n"
        "for pkg in ('codegen', 'compiler', 'runtime', 'counters', 'machine', 'ir'):\n"
        "    p = importlib.import_module('qdexplorer.' + pkg)\n"
        "    for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "print(sorted(m for m in sys.modules if m == 'qdexplorer.lang' or m.startswith('qdexplorer.lang.')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", "the language was loaded by: " + out.stdout


def test_no_folder_of_the_package_holds_more_than_20_modules():
    """A folder past 20 modules is a town, not a room: give it wings (sub-packages) by idea."""
    big = {}
    for d in [PKG] + [p for p in PKG.rglob("*") if p.is_dir() and p.name != "__pycache__"]:
        n = len(list(d.glob("*.py")))
        if n > 20:
            big[str(d.relative_to(PKG.parent))] = n
    assert big == {}


@functools.lru_cache(maxsize=1)   # two tests read them: one walk of the package (4 s), not two
def _house_figures():
    import importlib.util
    spec = importlib.util.spec_from_file_location("house_figures", ROOT / "benchmarks" / "house_figures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.figures(ROOT, listing=True, parse=_source_cache.tree)


def test_no_module_reaches_another_modules_private_names_outside_the_language():
    """A module uses the private names it defines and no other's (`mod._x`, `from mod import _x`,
    `obj._attr` of a class it does not define); other libraries' names (`os._exit`) are theirs to
    offer. None, inside `lang/` too: the fields' adjoints and residency are components with public
    interfaces (autodiff/adjoints.py, host/residency.py), a kernel's specialisations are read through
    `Kernel.lowered_keys`."""
    fig = _house_figures()
    outside = {k: v for k, v in fig["private_reach_sites"].items() if not k.startswith("qdexplorer/lang/")}
    assert outside == {}
    assert fig["private_reaches_inside_lang"] == 0, fig["private_reach_sites"]


def test_imports_of_the_package_inside_functions_are_rare():
    """An import of qdexplorer's own modules inside a function hides a dependency from the reader and from
    the layer contracts; each one left is a documented cycle-breaker or a deliberate lazy load (Ray, CUDA,
    Qt, the script layer, CLI start-up), said in a comment at the site. A ratchet: package-wide the goal of
    the house's round 4 (30); outside `lang/`, the count it reached (9), so neither can grow back."""
    fig = _house_figures()
    sites = fig["function_level_import_sites"]
    outside = {k: v for k, v in sites.items() if not k.startswith("qdexplorer/lang/")}
    assert sum(len(v) for v in outside.values()) <= 9, outside
    assert fig["function_level_own_imports"] <= 30, sites
